import { stripControls } from '../core/control-chars.js';
import type { Redactor } from '../core/redact.js';
import { redactName } from '../core/redact.js';
import { sessionDirName, slugify } from '../core/naming.js';
import type { Identity } from './identity.js';
import type { BuildRequest, SessionChange } from './types.js';

/**
 * Text a caller brings in from outside the transcript (a flag, a title, a file name) is redacted
 * like transcript text before the store may hold it.
 */
export class Cleaner {
  constructor(private readonly redactor: Redactor) {}

  text(text: string): string {
    return this.redactor.redact(stripControls(text)).text;
  }

  /**
   * A name that becomes an id or a folder (a file name, a `session` field, `--session`). What the
   * name becomes may hold a credential its own characters do not: with the invisible characters
   * taken out that text loses before it is read (`ghp_4fJk\u200b…`), or as its folder, where every
   * character outside [\w.-] is a `_` ("deploy ghp 4fJk…", a full-width `＿`). A name is redacted
   * in the first of these forms that holds one; any other keeps its id, as before.
   */
  name(name: string): string {
    const out = redactName(this.redactor, name);
    if (out !== name) return out;
    const plain = stripControls(name);
    for (const form of [plain, sessionDirName(plain.normalize('NFKC'))]) {
      if (this.redactor.redact(form).count > 0) return redactName(this.redactor, form);
    }
    return name;
  }

  request(req: BuildRequest): BuildRequest {
    const out: BuildRequest = { ...req };
    if (req.objective !== undefined) out.objective = this.text(req.objective);
    if (req.session !== undefined) out.session = this.name(req.session);
    if (req.project !== undefined) out.project = this.text(req.project);
    if (req.model !== undefined) out.model = this.text(req.model);
    if (req.history?.note !== undefined) out.history = { ...req.history, note: this.text(req.history.note) };
    return out;
  }

  identity(ident: Identity): Identity {
    return { ...ident, id: this.name(ident.id), uuid: ident.uuid === null ? null : this.name(ident.uuid), parent: ident.parent === null ? null : this.name(ident.parent) };
  }

  /**
   * A title a user gives: redacted as text, and again as the slug its folder takes, where spaces and
   * punctuation become `-` and may join a key's parts (`deepseek sk 9f3a…` → `deepseek-sk-9f3a…`):
   * each word of eight characters or more inside what the slug's redaction found is taken out of
   * the title too, so HANDOFF.md's heading and INDEX.json do not keep what the folder's name lost.
   */
  title(title: string): string {
    let out = this.text(title);
    const slug = slugify(out);
    const spans = this.redactor.find(slug);
    // A title whose slug holds one is read as the slug reads it: accents and other marks off (a
    // combining mark inside a key, `d\u0301api…`, kept its words apart from the slug's).
    if (spans.length > 0) out = out.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
    for (const span of spans) {
      for (const word of slug.slice(span.start, span.end).split(/[^a-z0-9]+/)) {
        if (word.length >= 8) out = out.replace(new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[REDACTED]');
      }
    }
    return out;
  }

  change(change: SessionChange): SessionChange {
    return {
      ...(change.title === undefined ? {} : { title: this.title(change.title) }),
      ...(change.project === undefined ? {} : { project: this.text(change.project) }),
      ...(change.history === undefined ? {} : { history: change.history.note === undefined ? change.history : { ...change.history, note: this.text(change.history.note) } }),
    };
  }
}
