import { join } from 'node:path';
import { appendDurable } from '../store/files.js';
import { FILES } from '../store/layout.js';
import { crashPoint } from './faults.js';

/**
 * Timeline lines and TOOLS.md sections waiting to be appended. A large backfill flushes in
 * bounded batches (memory stays flat); nothing appended counts until the manifest commits it,
 * and a build that dies first has its appends cut back by the next one.
 */

const FLUSH_CHARS = 8 << 20;

export class AppendBuffer {
  private timeline: string[] = [];
  private tools: string[] = [];
  private chars = 0;
  timelineBytes = 0;
  toolsBytes = 0;

  /** `onTools` sees every TOOLS.md byte appended (to continue its running digest). */
  constructor(
    public dir: string,
    private readonly onTools: (bytes: Buffer) => void = () => undefined,
  ) {}

  /** TOOLS.md's header, written once when the file starts. */
  header(text: string): void {
    this.tools.push(text);
    this.chars += text.length;
  }

  async add(timelineLine: string, toolsSection: string | null): Promise<void> {
    this.timeline.push(timelineLine);
    this.chars += timelineLine.length;
    if (toolsSection !== null) {
      this.tools.push(toolsSection);
      this.chars += toolsSection.length;
    }
    if (this.chars >= FLUSH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    const timeline = this.timeline.join('');
    const tools = this.tools.join('');
    this.timeline = [];
    this.tools = [];
    this.chars = 0;
    if (timeline.length > 0) {
      await appendDurable(join(this.dir, FILES.timeline), timeline);
      this.timelineBytes += Buffer.byteLength(timeline);
      crashPoint('mid-append');
    }
    if (tools.length > 0) {
      const buf = Buffer.from(tools);
      await appendDurable(join(this.dir, FILES.tools), tools);
      this.toolsBytes += buf.length;
      this.onTools(buf);
    }
  }
}
