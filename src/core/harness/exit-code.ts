/**
 * Exit statuses that agents write into a command's output text. Only the head of the text is
 * searched, so a huge output costs nothing and a number deep inside a log is never mistaken for
 * the status.
 */
const HEAD_CHARS = 400;
const TAIL_CHARS = 400;

const HEAD_PATTERNS: readonly RegExp[] = [
  // Claude Code Bash: "Exit code 1\n..." (is_error results), sometimes prefixed "Error: ".
  /^(?:Error: )?Exit code (\d{1,3})\b/,
  // Codex unified exec: "Process exited with code 1".
  /^Process exited with code (\d{1,3})\b/m,
  // Codex 0.154: "Exit code: 1" inside the "Script completed" header.
  /^Exit code: (\d{1,3})\b/m,
  // Older Codex JSON output: {"output":"...","metadata":{"exit_code":1,...}}
  /"exit_code"\s*:\s*(\d{1,3})\b/,
];

export function parseExitCode(text: string): number | undefined {
  const head = text.slice(0, HEAD_CHARS);
  for (const re of HEAD_PATTERNS) {
    const m = re.exec(head);
    if (m?.[1] !== undefined) return Number(m[1]);
  }
  if (text.length > HEAD_CHARS) {
    // The JSON form puts metadata after a long output.
    const m = /"exit_code"\s*:\s*(\d{1,3})\b/.exec(text.slice(-TAIL_CHARS));
    if (m?.[1] !== undefined) return Number(m[1]);
  }
  return undefined;
}
