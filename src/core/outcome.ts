import type { CheckKind } from './shell.js';

/**
 * The outcome of a check, decided from its exit code AND its output: a pipeline (`pytest | tail`)
 * hides the exit code, a coverage gate fails a run whose tests all passed, and Codex's code mode
 * records no exit code at all. A failure marker in the output always wins over a zero exit.
 */

export type Outcome = 'pass' | 'fail' | 'unknown';

/** Lines that say a check failed, strongest first. Each is anchored to a line, so it runs in linear time. */
const FAIL_LINES: readonly RegExp[] = [
  /^FAIL Required test coverage.*$/m,
  /^=+ .*\b\d+ (?:failed|errors?)\b.*=+\s*$/m,
  /^(?:ERROR|error): (?:file or directory not found|file not found|not found):? .*$/m,
  /^.*\berror TS\d+:.*$/m,
  /^.*\b(?:Build failed|Failed to compile|Compilation failed|compilation failed|build failed)\b.*$/m,
  /^error: could not compile .*$/m,
  /^error(?:\[E\d+\])?: .*$/m,
  /^test result: FAILED\..*$/m,
  /^\s*Test Files\s+\d+ failed.*$/m,
  /^\s*Tests?:?\s+\d+ failed.*$/m,
  /^(?:FAIL|FAILED|--- FAIL:)\s.*$/m,
  /^Found \d+ errors?\b.*$/m,
  /^.*\b\d+ errors? found\b.*$/m,
  /^.*✖ \d+ problems? \([1-9]\d* errors?.*$/m,
  /^Diff in .*$/m,
  /^would reformat .*$/m,
  /^\[warn\] Code style issues found.*$/m,
  /^.*\b\d+ (?:high|critical) severity vulnerabilit.*$/m,
  /^npm ERR! .*$/m,
  /^npm error .*$/m,
  /^.*\b[1-9]\d* errors?, \d+ warnings?.*$/m,
  /^.*ERR_PNPM_\w+.*$/m,
  /^error Command failed with exit code \d+.*$/m,
  /^.*(?:command not found|is not recognized as (?:an internal or external command|the name of a cmdlet)).*$/m,
  /^.*\bTraceback \(most recent call last\):.*$/m,
  /^.*\bno tests ran\b.*$/m,
  /^.*\bJob failed\b.*$/m,
];

const PASS_LINES: readonly RegExp[] = [
  /^=+ .*\b\d+ passed\b.*=+\s*$/m,
  /^test result: ok\..*$/m,
  /^\s*Finished `?\w+`? profile.*$/m,
  /^All checks passed!.*$/m,
  /^Success: no issues found.*$/m,
  /^.*\b0 errors?, \d+ warnings?.*$/m,
  /^.*(?:✓ Compiled successfully|Compiled successfully|✓ built in|built in \d).*$/m,
  /^\s*Test Files\s+\d+ passed.*$/m,
  /^\s*Tests?:?\s+\d+ passed.*$/m,
  /^ok\s+\S+.*$/m,
  /^found 0 vulnerabilities.*$/m,
  /^.*\bJob succeeded\b.*$/m,
];

/** pytest's "= 1 failed, 5 passed =" is a failure even though it says passed. */
function lastMatch(text: string, res: readonly RegExp[]): string | null {
  let best: { at: number; line: string } | null = null;
  for (const re of res) {
    const g = new RegExp(re.source, 'gm');
    for (const m of text.matchAll(g)) {
      const at = m.index ?? 0;
      if (best === null || at > best.at) best = { at, line: m[0] };
    }
  }
  return best === null ? null : best.line.trim();
}

export interface Decided {
  outcome: Outcome;
  /** The output line that says what happened (the last failure line, or the last summary line). */
  line: string | null;
}

/** `ok` is the harness's own verdict (Claude's is_error), used when no exit code is recorded. */
export function decideOutcome(_kind: CheckKind, exitCode: number | undefined, ok: boolean | undefined, output: string): Decided {
  const text = output.replace(/\r/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  const fail = lastMatch(text, FAIL_LINES);
  const pass = lastMatch(text, PASS_LINES);
  // pytest's exit 5: the selection matched no test, so nothing was checked either way.
  if ((exitCode === 5 || (exitCode === undefined && ok === false)) && /\bno tests ran\b|=+ \d+ deselected in|collected 0 items/.test(text) && !/\b\d+ (?:passed|failed)\b/.test(text)) {
    return { outcome: 'unknown', line: lastLine(text) };
  }
  if (exitCode !== undefined && exitCode !== 0) return { outcome: 'fail', line: fail ?? lastLine(text) };
  if (fail !== null) return { outcome: 'fail', line: fail };
  if (exitCode === 0 || ok === true) return { outcome: 'pass', line: pass ?? lastLine(text) };
  if (ok === false) return { outcome: 'fail', line: lastLine(text) };
  if (pass !== null) return { outcome: 'pass', line: pass };
  return { outcome: 'unknown', line: lastLine(text) };
}

/** The last line of an output that says something (not a wall-time header, not blank). */
export function lastLine(text: string): string | null {
  const lines = text.split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const l = lines[i] as string;
    if (l.length === 0 || /^(Wall time|Output:|Script completed|Exit code:?|Process exited|Chunk ID|Original token count)/.test(l) || l === '…') continue;
    return l.length > 240 ? `${l.slice(0, 239)}…` : l;
  }
  return null;
}
