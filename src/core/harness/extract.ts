import type { BlockKind } from '../types.js';

/** Plain object check for values that came out of JSON.parse. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Decoded size of a base64 payload, without decoding it. */
export function base64Bytes(data: string): number {
  let pad = 0;
  if (data.endsWith('==')) pad = 2;
  else if (data.endsWith('=')) pad = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

export function formatKb(bytes: number): string {
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** Images and other binary blocks are never copied: they become a one-line placeholder. */
export function imagePlaceholder(mediaType: string | undefined, bytes: number | undefined): string {
  const type = mediaType ?? 'image';
  return bytes === undefined ? `[image: ${type} omitted]` : `[image: ${type}, ${formatKb(bytes)} omitted]`;
}

function imageFromBlock(b: Record<string, unknown>): string {
  const source = isObj(b.source) ? b.source : undefined;
  if (source) {
    const data = str(source.data);
    return imagePlaceholder(str(source.media_type), data === undefined ? undefined : base64Bytes(data));
  }
  const url = str(b.image_url) ?? (isObj(b.image_url) ? str(b.image_url.url) : undefined);
  if (url?.startsWith('data:')) {
    const m = /^data:([^;,]+)(;base64)?,/.exec(url.slice(0, 200));
    const payload = url.slice(url.indexOf(',') + 1);
    return imagePlaceholder(m?.[1], m?.[2] ? base64Bytes(payload) : payload.length);
  }
  return imagePlaceholder(str(b.media_type) ?? str(b.mime_type), undefined);
}

/**
 * The images a Codex user message carried (`images`: data URLs; `local_images`: paths), as the
 * placeholders a Claude Code message's image becomes: the request says it showed something.
 */
export function attachedImages(images: unknown, local: unknown): string {
  const out: string[] = [];
  for (const u of Array.isArray(images) ? images : []) {
    if (typeof u !== 'string') continue;
    out.push(u.startsWith('data:') ? imageFromBlock({ image_url: u }) : imagePlaceholder(undefined, undefined));
  }
  for (const f of Array.isArray(local) ? local : []) {
    const path = typeof f === 'string' ? f : isObj(f) ? str(f.path) : undefined;
    if (path === undefined) continue;
    const ext = /\.(png|jpe?g|gif|webp|bmp)$/i.exec(path)?.[1]?.toLowerCase();
    out.push(imagePlaceholder(ext === undefined ? undefined : `image/${ext === 'jpg' ? 'jpeg' : ext}`, undefined));
  }
  return out.join('\n');
}

/** Renders a tool call readably: shell tools by their command, others by their input. */
export function formatToolCall(name: string, input: unknown): string {
  if (isObj(input)) {
    const cmd = input.command ?? input.cmd;
    if (typeof cmd === 'string') return `${name}: ${cmd}`;
    if (Array.isArray(cmd) && cmd.every((c) => typeof c === 'string')) return `${name}: ${shellJoin(cmd as string[])}`;
  }
  if (input === undefined || input === null) return name;
  if (typeof input === 'string') return input.length > 0 ? `${name}: ${input}` : name;
  return `${name} ${boundedJson(input)}`;
}

/** Deeper than any tool's real input: what lies below is shown as `…`. */
const MAX_INPUT_DEPTH = 32;

/**
 * JSON of a value from a transcript, its nesting cut at MAX_INPUT_DEPTH: JSON.stringify recurses,
 * and a line nested some thousands deep (valid JSON, which JSON.parse reads) would overflow the
 * stack.
 */
export function boundedJson(v: unknown, depth = 0): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (depth >= MAX_INPUT_DEPTH) return '"…"';
  if (Array.isArray(v)) return `[${v.map((x) => boundedJson(x, depth + 1)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) if (x !== undefined && typeof x !== 'function') parts.push(`${JSON.stringify(k)}:${boundedJson(x, depth + 1)}`);
  return `{${parts.join(',')}}`;
}

/** A word for a POSIX shell: as it is when plain, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A word of a command the handoff shows: as shellWord, but one holding `'` is double-quoted (`"`,
 * `\`, `$` and `` ` `` escaped), not split by `'\''`: the redactor reads a quoted password to its
 * closing quote, and `'Tq8'\''mZ2…'` ended it at the first apostrophe.
 */
function shownWord(s: string): string {
  return s.includes("'") ? `"${s.replace(/["\\$`]/g, '\\$&')}"` : shellWord(s);
}

/** ["bash","-lc","npm test"] reads best as the script itself. */
export function shellJoin(argv: readonly string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0] ?? '') && /^-\w*c$/.test(argv[1] ?? '')) return argv[2] ?? '';
  return argv.map(shownWord).join(' ');
}

export interface Extracted {
  text: string;
  blocks: BlockKind[];
}

/** One content block: its kind for classify() and its text. */
export function blockText(b: unknown): { kind: BlockKind; text: string } {
  if (typeof b === 'string') return { kind: 'text', text: b };
  if (!isObj(b)) return { kind: 'other', text: '' };
  const type = str(b.type) ?? '';
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
    case 'summary_text':
    case 'Text':
      return { kind: 'text', text: str(b.text) ?? '' };
    case 'thinking':
    case 'reasoning':
    case 'reasoning_text':
      return { kind: 'thinking', text: str(b.thinking) ?? str(b.text) ?? '' };
    case 'redacted_thinking':
      return { kind: 'thinking', text: '' };
    case 'image':
    case 'input_image':
    case 'output_image':
    case 'localImage':
    case 'image_url':
      return { kind: 'image', text: imageFromBlock(b) };
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return { kind: 'tool_call', text: formatToolCall(str(b.name) ?? 'tool', b.input) };
    case 'tool_result':
    case 'web_search_tool_result':
    case 'mcp_tool_result':
      return { kind: 'tool_result', text: contentText(b.content).text };
    case 'document':
    case 'file':
      return { kind: 'other', text: `[${type} omitted]` };
    default: {
      const t = str(b.text);
      return { kind: t === undefined ? 'other' : 'text', text: t ?? '' };
    }
  }
}

/** A `content` value: a string, or an array of blocks joined by blank lines. */
export function contentText(content: unknown): Extracted {
  if (typeof content === 'string') return { text: content, blocks: ['text'] };
  if (Array.isArray(content)) {
    const blocks: BlockKind[] = [];
    const texts: string[] = [];
    for (const b of content) {
      const { kind, text } = blockText(b);
      blocks.push(kind);
      if (text.length > 0) texts.push(text);
    }
    return { text: texts.join('\n\n'), blocks };
  }
  if (isObj(content)) {
    const { kind, text } = blockText(content);
    return { text, blocks: [kind] };
  }
  return { text: '', blocks: [] };
}

/**
 * The generic text order of SPEC §3: `text`, then `content`, then `output`; then
 * `message.content[]`; then `parts[]` / `item.content[]`. The first non-blank one wins.
 */
export function genericText(obj: Record<string, unknown>): Extracted {
  const candidates: unknown[] = [obj.text, obj.content, obj.output];
  const message = isObj(obj.message) ? obj.message : undefined;
  if (message) candidates.push(message.content, message.text);
  else if (typeof obj.message === 'string') candidates.push(obj.message);
  candidates.push(obj.parts);
  if (isObj(obj.item)) candidates.push(obj.item.content, obj.item.text);
  for (const c of candidates) {
    if (c === undefined || c === null) continue;
    const ex = contentText(c);
    if (ex.text.trim().length > 0) return ex;
  }
  return { text: '', blocks: [] };
}

export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}
