import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../core/canonical.js';
import { EXIT, NotFoundError, SchemaError } from '../../errors.js';
import { packageVersion } from '../../paths.js';
import { listDir } from '../../store/files.js';
import type { Artifact, LlmPayload } from '../../store/interchange.js';
import { buildInterchange, mediaType } from '../../store/interchange.js';
import { FILES } from '../../store/layout.js';
import { readManifest } from '../../store/manifest.js';
import { firstError, validator } from '../../store/schemas.js';
import type { Command } from '../command.js';
import { openSession } from '../store.js';

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

async function artifacts(dir: string): Promise<Artifact[]> {
  const files: [Artifact['role'], string][] = [...ROLES, ...(await listDir(join(dir, FILES.history))).sort().map((n) => ['history', join(FILES.history, n)] as [Artifact['role'], string])];
  const out: Artifact[] = [];
  for (const [role, rel] of files) {
    const path = join(dir, rel);
    const bytes = await readFile(path).catch(() => null);
    if (bytes === null) continue; // a file verify would report missing is simply not listed
    out.push({ role, path, media_type: mediaType(rel), bytes: bytes.length, sha256: sha256Hex(bytes) });
  }
  return out;
}

async function readLlm(dir: string): Promise<LlmPayload> {
  const path = join(dir, FILES.llm);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new NotFoundError(`${path} is missing or not JSON (${(e as Error).message})`, { hint: 'rebuild the session (`handoff build <transcript>`), then export again' });
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
    const manifest = await readManifest(e.dir);
    if (!manifest) throw new NotFoundError(`${e.dir} has no manifest.json`, { hint: '`handoff verify --all` reports damaged sessions' });
    const doc = buildInterchange({ dir: e.dir, manifest, llm: await readLlm(e.dir), artifacts: await artifacts(e.dir), producer: { name: 'handoffd', version: packageVersion() } });
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
