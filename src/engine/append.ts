import { join } from 'node:path';
import { appendDurable, ensureDir } from '../store/files.js';
import { FILES } from '../store/layout.js';
import { crashPoint } from './faults.js';

/**
 * Timeline lines and TOOLS.md sections waiting to be appended. A large backfill flushes in
 * bounded batches (memory stays flat); nothing appended counts until the manifest commits it,
 * and a build that dies first has its appends cut back by the next one.
 */

const FLUSH_BYTES = 8 << 20;

export class AppendBuffer {
  private timeline: Buffer[] = [];
  private tools: Buffer[] = [];
  private bytes = 0;
  timelineBytes = 0;
  toolsBytes = 0;

  /** `onTools` sees every TOOLS.md byte appended (to continue its running digest). */
  constructor(
    public dir: string,
    private readonly onTools: (bytes: Buffer) => void = () => undefined,
  ) {}

  /** TOOLS.md's header, written once when the file starts. */
  header(text: string): void {
    const b = Buffer.from(text);
    this.tools.push(b);
    this.bytes += b.length;
  }

  async add(timelineLine: Buffer, toolsSection: string | null): Promise<void> {
    this.timeline.push(timelineLine);
    this.bytes += timelineLine.length;
    if (toolsSection !== null) {
      const b = Buffer.from(toolsSection);
      this.tools.push(b);
      this.bytes += b.length;
    }
    if (this.bytes >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    const timeline = Buffer.concat(this.timeline);
    const tools = Buffer.concat(this.tools);
    this.timeline = [];
    this.tools = [];
    this.bytes = 0;
    // The session folder is made by its first append: no folder for a file that yields no turn.
    if (timeline.length > 0 || tools.length > 0) await ensureDir(this.dir);
    // A folder written to has its timeline, if an empty one: a session rebuilt from byte 0 whose
    // first line is corrupt commits no turn, and `verify` requires the file (SPEC §5).
    if (timeline.length > 0 || tools.length > 0) {
      await appendDurable(join(this.dir, FILES.timeline), timeline, true);
      this.timelineBytes += timeline.length;
      crashPoint('mid-append');
    }
    if (tools.length > 0) {
      await appendDurable(join(this.dir, FILES.tools), tools);
      this.toolsBytes += tools.length;
      this.onTools(tools);
    }
  }
}
