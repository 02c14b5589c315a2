import { stripControls } from '../core/control-chars.js';
import type { Redactor } from '../core/redact.js';
import { redactName } from '../core/redact.js';
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

  /** A name that becomes an id or a folder (a file name, a `session` field, `--session`). */
  name(name: string): string {
    return redactName(this.redactor, name);
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

  change(change: SessionChange): SessionChange {
    return {
      ...(change.title === undefined ? {} : { title: this.text(change.title) }),
      ...(change.project === undefined ? {} : { project: this.text(change.project) }),
      ...(change.history === undefined ? {} : { history: change.history.note === undefined ? change.history : { ...change.history, note: this.text(change.history.note) } }),
    };
  }
}
