import { readFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../core/canonical.js';
import { EXIT, NotFoundError, SchemaError, VerifyError } from '../../errors.js';
import { packageVersion } from '../../paths.js';
import { listDir } from '../../store/files.js';
import type { Artifact, LlmPayload } from '../../store/interchange.js';
import { buildInterchange, mediaType } from '../../store/interchange.js';
import { FILES } from '../../store/layout.js';
import type { Manifest } from '../../store/manifest.js';
import { readManifest } from '../../store/manifest.js';
import { firstError, validator } from '../../store/schemas.js';
import type { Command } from '../command.js';
import { openSession } from '../store.js';
import { notJsonReason } from '../../core/ingest.js';

/**
 * `handoff export`: one document valid against schemas/handoff.schema.json (the interchange
 * contract v1.0). It is validated before it is printed: a document that breaks the contract is
 * never handed to another tool.
 */

const ROLES: [Artifact['role'], string][] = [
  ['handoff_md', FILES.handoff],
  ['summary_json', FILES.summary],
  ['llm_json', FILES.llm],
  ['timeline', FILES.timeline],
  ['tools_md', FILES.tools],
  ['manifest', FILES.manifest],
];

/**
 * The files that name the manifest's sha256: the renders sealed with it (the payloads and
 * HANDOFF.md), and the manifest itself, read again (its seal is the only place the sha256 is).
 */
const SEALED: ReadonlySet<Artifact['role']> = new Set(['handoff_md', 'summary_json', 'llm_json', 'manifest']);

/**
 * The session's files as of one commit: timeline.jsonl and TOOLS.md up to the lengths the
 * manifest records (a build appends before it commits); null when a render is not the
 * manifest's (a build replaced it and has not committed yet) or the manifest is not `m`.
 */
async function artifacts(dir: string, m: Manifest): Promise<{ list: Artifact[]; llm: string | null } | null> {
  const files: [Artifact['role'], string][] = [...ROLES, ...(await listDir(join(dir, FILES.history))).sort().map((n) => ['history', join(FILES.history, n)] as [Artifact['role'], string])];
  const out: Artifact[] = [];
  let llm: string | null = null;
  const committed: Partial<Record<Artifact['role'], number>> = { timeline: m.timeline_bytes, tools_md: m.tools_bytes };
  for (const [role, rel] of files) {
    const path = join(dir, rel);
    let bytes = await readFile(path).catch(() => null);
    if (bytes === null) continue; // a file verify would report missing is simply not listed
    const upTo = committed[role];
    if (upTo !== undefined && bytes.length > upTo) bytes = bytes.subarray(0, upTo);
    if (SEALED.has(role) && !bytes.includes(m.manifest_sha256)) return null;
    if (role === 'llm_json') llm = bytes.toString('utf8');
    out.push({ role, path, media_type: mediaType(rel), bytes: bytes.length, sha256: sha256Hex(bytes) });
  }
  return { list: out, llm };
}

/** How often export reads a session again that a build changed while it read. */
const SNAPSHOT_TRIES = 20;
const SNAPSHOT_PAUSE_MS = 50;

/**
 * The manifest, the llm payload and the files of one commit. A live session's daemon may
 * commit while they are read: then they are read again, so that an export never mixes two
 * builds (a payload of one revision, digests of another).
 */
async function snapshot(dir: string): Promise<{ manifest: Manifest; llm: LlmPayload; artifacts: Artifact[] }> {
  for (let i = 0; i < SNAPSHOT_TRIES; i += 1) {
    const manifest = await readManifest(dir);
    if (!manifest) throw new NotFoundError(`${dir} has no manifest.json`, { hint: '`handoff verify --all` reports damaged sessions' });
    const files = await artifacts(dir, manifest);
    if (files !== null) return { manifest, llm: parseLlm(join(dir, FILES.llm), files.llm), artifacts: files.list };
    await setTimeout(SNAPSHOT_PAUSE_MS);
  }
  throw new VerifyError(`${dir}: its renders are not those of its manifest after ${SNAPSHOT_TRIES} reads (a build is writing it, or one stopped before its commit)`, {
    hint: 'try again in a moment; `handoff verify <id>` says whether a build stopped short of its commit, and the session\'s next build commits it',
  });
}

function parseLlm(path: string, text: string | null): LlmPayload {
  let data: unknown;
  try {
    if (text === null) throw new Error('it is missing');
    data = JSON.parse(text);
  } catch (e) {
    throw new NotFoundError(`${path} is missing or not JSON (${notJsonReason(e)})`, { hint: 'rebuild the session (`handoff build <transcript>`), then export again' });
  }
  const v = validator('handoff.llm');
  if (!v(data)) {
    throw new SchemaError(`${path} does not match schemas/handoff.llm.schema.json at ${firstError(v)}`, { hint: '`handoff verify` says what changed; rebuild the session to re-render it' });
  }
  return data as LlmPayload;
}

export const exportCommand: Command = {
  name: 'export',
  maxArgs: 1,
  summary: 'print a handoff as one interchange document (contract v1.0, schemas/handoff.schema.json)',
  usage: 'handoff export <id-prefix>',
  example: 'handoff export 0d3a > handoff.json',
  details: 'The document is validated against the schema before it is printed (pretty JSON on stdout); exit 1 if it is not valid.',
  options: {},
  async run(io, args) {
    const { entry: e } = await openSession(io, args, exportCommand);
    const snap = await snapshot(e.dir);
    const doc = buildInterchange({ dir: e.dir, manifest: snap.manifest, llm: snap.llm, artifacts: snap.artifacts, producer: { name: 'handoffd', version: packageVersion() } });
    const v = validator('handoff');
    if (!v(doc)) {
      throw new SchemaError(`the export of ${e.id} does not match schemas/handoff.schema.json at ${firstError(v)}`, {
        hint: 'nothing was printed; this is a bug in handoffd or a damaged session — run `handoff verify` on it and report the message',
        details: { errors: v.errors?.slice(0, 5) },
      });
    }
    io.out(JSON.stringify(doc, null, 2));
    return EXIT.OK;
  },
};
