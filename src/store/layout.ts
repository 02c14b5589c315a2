import { join } from 'node:path';

/** The on-disk layout of a store (SPEC §2, §4). Paths only; no I/O. */

export const RESERVED_ROOT_NAMES = new Set(['projects', 'links', '.handoffd', 'INDEX.json']);

export const FILES = {
  manifest: 'manifest.json',
  timeline: 'timeline.jsonl',
  tools: 'TOOLS.md',
  handoff: 'HANDOFF.md',
  summary: 'HANDOFF.summary.json',
  llm: 'HANDOFF.llm.json',
  history: 'history',
} as const;

/** Render files whose sha256 the manifest records. */
export const RENDER_FILES = [FILES.summary, FILES.llm, FILES.tools, FILES.handoff] as const;

/** A state file: brotli-compressed JSON since store format 5 (`.json.br`), gzip in 3 and 4 (`.json.gz`), plain JSON before (state-file.ts). */
export const STATE_FILE_RE = /^\.state-(\d+)\.json(?:\.gz|\.br)?$/;
export const stateFileName = (revision: number): string => `.state-${String(revision).padStart(8, '0')}.json.br`;

/** Temp files write-file-atomic leaves when killed: `<name>.<uint32>`. */
export const STRAY_TEMP_RE = /^(?:manifest\.json|HANDOFF\.md|HANDOFF\.summary\.json|HANDOFF\.llm\.json|INDEX\.json|PROJECT\.md|to-session\.json|\.state-\d+\.json(?:\.gz|\.br)?|[^/]+\.md)\.\d{1,10}$/;

export class Layout {
  constructor(readonly root: string) {}

  get projectsDir(): string {
    return join(this.root, 'projects');
  }
  get linksDir(): string {
    return join(this.root, 'links');
  }
  get index(): string {
    return join(this.root, 'INDEX.json');
  }
  get runtimeDir(): string {
    return join(this.root, '.handoffd');
  }
  get lockFile(): string {
    return join(this.runtimeDir, 'handoffd.lock');
  }
  /** Held by whatever writes the store: the daemon, or a one-shot command with none running. */
  get writerLock(): string {
    return join(this.runtimeDir, 'writer.lock');
  }
  /** One file per live session for the shell status line (see daemon/status-files.ts). */
  get statusDir(): string {
    return join(this.runtimeDir, 'status');
  }
  projectDir(project: string): string {
    return join(this.projectsDir, project);
  }
  projectMd(project: string): string {
    return join(this.projectDir(project), 'PROJECT.md');
  }
  sessionDir(project: string, dirName: string): string {
    return join(this.projectDir(project), dirName);
  }
  linkFile(otherProject: string): string {
    return join(this.linksDir, `${otherProject}.md`);
  }
}
