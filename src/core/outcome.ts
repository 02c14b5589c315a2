import type { CheckKind } from './shell.js';
import { fileName } from './paths.js';

/**
 * The outcome of a check, decided from its exit code AND its output: a pipeline (`pytest | tail`)
 * hides the exit code, a coverage gate fails a run whose tests all passed, and Codex's code mode
 * records no exit code at all. A failure marker in the output always wins over a zero exit.
 */

export type Outcome = 'pass' | 'fail' | 'unknown';

/** How a handoff says a run's outcome: "passed", "failed", or `none` for a run with no verdict. */
export const outcomeWord = (o: string, none = 'ran'): string => (o === 'pass' ? 'passed' : o === 'fail' ? 'failed' : none);

/** Lines that say a check failed, strongest first. Each is anchored to a line, so it runs in linear time. */
const FAIL_LINES: readonly RegExp[] = [
  /^FAIL Required test coverage.*$/gm,
  /^=+ .*\b\d+ (?:failed|errors?)\b.*=+\s*$/gm,
  /^(?:ERROR|error): (?:file or directory not found|file not found|not found):? .*$/gm,
  /^.*\berror TS\d+:.*$/gm,
  /^.*\b(?:Build failed|Failed to compile|Compilation failed|compilation failed|build failed)\b.*$/gm,
  /^error: could not compile .*$/gm,
  /^error(?:\[E\d+\])?: .*$/gm,
  /^test result: FAILED\..*$/gm,
  /^\s*Test Files\s+\d+ failed.*$/gm,
  /^\s*Tests?:?\s+\d+ failed.*$/gm,
  /^(?:FAIL|FAILED|--- FAIL:)\s.*$/gm,
  /^Found \d+ errors?\b.*$/gm,
  /^.*\b\d+ errors? found\b.*$/gm,
  /^.*✖ \d+ problems? \([1-9]\d* errors?.*$/gm,
  /^Diff in .*$/gm,
  /^would reformat .*$/gm,
  /^\[warn\] Code style issues found.*$/gm,
  /^.*\b\d+ (?:high|critical) severity vulnerabilit.*$/gm,
  /^npm ERR! .*$/gm,
  /^npm error .*$/gm,
  /^.*\b[1-9]\d* errors?, \d+ warnings?.*$/gm,
  /^.*ERR_PNPM_\w+.*$/gm,
  /^error Command failed with exit code \d+.*$/gm,
  /^.*(?:command not found|is not recognized as (?:an internal or external command|the name of a cmdlet)).*$/gm,
  /^.*\bno tests ran\b.*$/gm,
  /^.*\bJob failed\b.*$/gm,
];

const PASS_LINES: readonly RegExp[] = [
  /^=+ .*\b\d+ passed\b.*=+\s*$/gm,
  /^test result: ok\..*$/gm,
  /^\s*Finished `?\w+`? profile.*$/gm,
  /^All checks passed!.*$/gm,
  /^Success: no issues found.*$/gm,
  /^.*\b0 errors?, \d+ warnings?.*$/gm,
  /^.*(?:✓ Compiled successfully|Compiled successfully|✓ built in|built in \d).*$/gm,
  /^\s*Test Files\s+\d+ passed.*$/gm,
  /^\s*Tests?:?\s+\d+ passed.*$/gm,
  /^ok\s+\S+.*$/gm,
  /^found 0 vulnerabilities.*$/gm,
  /^.*\bJob succeeded\b.*$/gm,
  // An install of the project builds it: uv's "Built x @ file:///…", "Installed 1 executable: x"; pip's.
  /^\s*Built \S+ @ .*$/gm,
  /^Installed \d+ executables?: .*$/gm,
  /^Successfully (?:built|installed) \S.*$/gm,
];

/**
 * npm's closing advice names no cause ("You can rerun the command with --loglevel=verbose", where
 * the log is or why it could not be written): the line before it does.
 */
const NPM_ADVICE = /^npm (?:error|ERR!) (?:You can rerun the command|A complete log of this run|Log files were not written|\s*$)/;

/** pytest's "= 1 failed, 5 passed =" is a failure even though it says passed. */
function lastMatch(text: string, res: readonly RegExp[]): string | null {
  let best: { at: number; line: string } | null = null;
  for (const re of res) {
    for (const m of text.matchAll(re)) {
      const at = m.index ?? 0;
      if (NPM_ADVICE.test(m[0])) continue;
      if (best === null || at > best.at) best = { at, line: m[0] };
    }
  }
  return best === null ? null : best.line.trim();
}

/**
 * cargo prints one "test result" line per test binary, and the last is often the doc-tests' "0
 * passed": shown alone it reads as if no test ran. Where a passing run printed several, the line
 * shown is their sum, and says so.
 */
const CARGO_OK = /^test result: ok\. (\d+) passed; (\d+) failed; (\d+) ignored;.*$/gm;

function cargoSum(text: string, line: string | null): string | null {
  if (line === null || !line.startsWith('test result: ok.')) return line;
  let n = 0;
  const sum = [0, 0, 0];
  for (const m of text.matchAll(CARGO_OK)) {
    n += 1;
    for (let k = 0; k < 3; k += 1) sum[k] = (sum[k] as number) + Number(m[k + 1]);
  }
  return n < 2 ? line : `test result: ok. ${sum[0]} passed; ${sum[1]} failed; ${sum[2]} ignored (the sum of ${n} "test result" lines)`;
}

/** A failure line that counts errors without naming one: ruff's "Found 1 error.", "3 errors found". */
const TALLY = /^(?:Found \d+ errors?\b|.*\b\d+ errors? found\b)/;
/** pytest's usage error for a path that is not there (exit 4). */
const NOT_FOUND = /^(?:ERROR|error): (?:file or directory not found|file not found|not found):? /m;

/** A linter's or type checker's diagnostic: `path:line[:col]: CODE message` or `path:line: error: message`. */
const DIAGNOSTIC = /^[^\s:][^:\n]*:\d+(?::\d+)?:? (?:[A-Z]+\d+\b|error:).*$/m;

/**
 * A build's verdict that names no cause: Next.js and webpack print "Failed to compile." and, on the
 * lines after it, the file and the error (rave-era at 300: "./components/events/event-card.tsx:27:3"
 * then "Type error: Cannot find name 'useEffect'."; quoted alone, the reader had to run the build
 * again to learn which file broke).
 */
const BARE_BUILD_FAIL = /^(?:Failed to compile|Build failed|Compilation failed|build failed)\.?$/;
const CAUSE = /^(?:(?:[A-Za-z]+ )?[A-Za-z]*(?:Error|error)\b.*|Module not found\b.*|Cannot find\b.*)$/;
const LOCATION = /^\.{0,2}[\\/]?[\w@.-]+(?:[\\/][\w@.[\]()-]+)*\.\w+(?::\d+){1,2}$/;

/** The error and where it is, within the ten lines after a build's bare verdict. */
function causeAfter(text: string, fail: string): string | null {
  const at = text.lastIndexOf(fail);
  if (at === -1) return null;
  const after = text.slice(at + fail.length).split('\n', 12).map((l) => l.trim()).filter((l) => l.length > 0).slice(0, 10);
  const i = after.findIndex((l) => CAUSE.test(l));
  if (i === -1) return null;
  const cause = after[i] as string;
  const where = i > 0 && LOCATION.test(after[i - 1] as string) ? `${after[i - 1] as string} ` : '';
  const both = `${where}${cause}`;
  return both.length > 200 ? `${both.slice(0, 199)}…` : both;
}

/** A TypeScript diagnostic: `src/a.tsx(52,53): error TS2345: …`, `src/a.ts:16:10 - error TS2769: …`, or a file-less `error TS5096: …`. */
const TS_ERROR = /^(?:(\S[^\n]*?)(?:\(\d+,\d+\)|:\d+:\d+)\s*(?::|-)\s*)?error (TS\d+):.*$/gm;

/** The files a check's TypeScript errors name, as printed (`src/a.tsx`), each once, at most 20. */
export function typeErrorFiles(text: string): string[] {
  return [...new Set([...text.matchAll(TS_ERROR)].map((m) => m[1]).filter((f): f is string => f !== undefined))].slice(0, 20);
}

/**
 * Type errors said by their count, their files and the first of them, not by the package
 * manager's closing line (agentcmd at 665: "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL … `tsc --noEmit`"
 * stood for five errors in five files, one of which no later edit touched).
 */
function typeErrors(text: string): string | null {
  const found = [...text.matchAll(TS_ERROR)];
  if (found.length === 0) return null;
  const first = (found[0] as RegExpMatchArray)[0].trim();
  if (found.length === 1) return first;
  const files = [...new Set(found.map((m) => m[1]).filter((f): f is string => f !== undefined).map(fileName))];
  // A long output is kept as its head and tail (ingest.ts): what its middle held is not counted.
  const cut = /\n…\n/.test(text) ? 'at least ' : '';
  const where = files.length === 0 ? '' : ` in ${cut}${files.length} file${files.length === 1 ? '' : 's'} (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''})`;
  return `${cut}${found.length} TypeScript errors${where}; the first: ${first.length > 120 ? `${first.slice(0, 119)}…` : first}`;
}

/**
 * cargo's closing "error: could not compile `x` … due to N previous errors" names no cause: the first
 * `error[E…]:` above it does, with the place its `-->` line gives (edgerunner at 773: "cannot find
 * module or crate `uuid`", quoted as "could not compile `edgerunner`").
 */
const RUST_ERROR = /^error(?:\[E\d+\])?: (?!could not compile |aborting due to ).*$/m;
const COULD_NOT_COMPILE = /^error: could not compile .*$/gm;

/**
 * The first error and its place, with the verdict of the crate it stopped (the first "could not
 * compile" after it), and how many more crates failed: two crates' errors paired the first's cause
 * with the last's verdict.
 */
function rustCause(text: string): string | null {
  const m = RUST_ERROR.exec(text);
  if (m === null) return null;
  const cause = m[0].trim();
  const from = (m.index ?? 0) + m[0].length;
  // Its own `-->` line, before the next diagnostic: E0463 has none, and the next error's is not its place.
  const next = /^(?:error|warning)\b/m.exec(text.slice(from));
  const where = /^\s*--> (\S+)/m.exec(text.slice(from, next === null ? from + 400 : from + Math.min(next.index, 400)))?.[1];
  const verdicts = [...text.matchAll(COULD_NOT_COMPILE)];
  const own = verdicts.find((v) => (v.index ?? 0) > (m.index ?? 0)) ?? verdicts.at(-1);
  const more = verdicts.length > 1 ? `; ${verdicts.length - 1} more crate${verdicts.length === 2 ? '' : 's'} failed to compile` : '';
  const first = where === undefined ? cause : `${cause} (${where})`;
  const said = `${first.length > 200 ? `${first.slice(0, 199)}…` : first}${own === undefined ? '' : ` — ${own[0].trim()}`}${more}`;
  return said;
}

/**
 * A Python traceback's verdict is its last frame's exception (`ValueError: Unable to determine
 * which files to ship`), which a build backend's traceback, nested in uv's `[stderr]` and followed
 * by its hints, does not end the output with (coderabbit at 46: quoted as "Traceback (most recent
 * call last):" alone).
 */
const TRACEBACK = /\bTraceback \(most recent call last\):/;
const TRACEBACK_LINE: readonly RegExp[] = [/^.*\bTraceback \(most recent call last\):.*$/gm];
/** An exception's line: its (dotted) name, and its message after `: ` (`httpx.ConnectTimeout: …`, `SystemExit: 2`). */
const RAISED = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::\s.*)?$/;

/**
 * The exception a traceback raised: the first line after it at the traceback's own indent (its
 * frames are indented under it), `Traceback` and the chaining notes ("During handling of …") aside.
 */
function raisedAfter(text: string, fail: string): string | null {
  const at = text.lastIndexOf(fail);
  if (at === -1) return null;
  const start = text.lastIndexOf('\n', at) + 1;
  const indent = /^[ \t]*/.exec(text.slice(start, at + 1))?.[0] ?? '';
  for (const line of text.slice(at + fail.length).split('\n').slice(1, 400)) {
    if (!line.startsWith(indent) || /^[ \t]/.test(line.slice(indent.length))) continue;
    const t = line.trim();
    if (t.length === 0 || TRACEBACK.test(t) || /^(?:During handling|The above exception)/.test(t)) continue;
    if (!RAISED.test(t)) return null;
    return t.length > 200 ? `${t.slice(0, 199)}…` : t;
  }
  return null;
}

/** A tally shown with the first error it counts, which says what failed ("E902 No such file or directory — Found 1 error."). */
function withCause(text: string, fail: string | null): string | null {
  const types = typeErrors(text);
  if (types !== null) return types;
  if (fail !== null && /\b\d+ failed\b/.test(fail)) {
    // pytest's short summary names each failed test (`FAILED tests/test_x.py::T::test_y - …`): the
    // first says what to look at, where the tally alone does not.
    const failed = [...text.matchAll(/^FAILED (\S+)/gm)];
    const first = failed[0]?.[1];
    if (first !== undefined) return `FAILED ${first.length > 160 ? `${first.slice(0, 159)}…` : first}${failed.length > 1 ? ` (and ${failed.length - 1} more)` : ''} — ${fail}`;
  }
  if (fail !== null && TRACEBACK.test(fail)) {
    const raised = raisedAfter(text, fail);
    if (raised !== null) return `${raised} — ${fail}`;
  }
  if (fail !== null && fail.startsWith('error: could not compile ')) {
    const cause = rustCause(text);
    if (cause !== null) return cause;
  }
  if (fail !== null && BARE_BUILD_FAIL.test(fail)) {
    const cause = causeAfter(text, fail);
    if (cause !== null) return `${cause} — ${fail}`;
  }
  if (fail === null || !TALLY.test(fail)) return fail;
  const diag = DIAGNOSTIC.exec(text)?.[0].trim();
  if (diag === undefined) return fail;
  return `${diag.length > 200 ? `${diag.slice(0, 199)}…` : diag} — ${fail}`;
}

export interface Decided {
  outcome: Outcome;
  /** The output line that says what happened (the last failure line, or the last summary line). */
  line: string | null;
  /** Failed because the selection matched no test (pytest's exit 5): nothing broke, nothing was checked. */
  nothingRan?: true;
}

/**
 * The total a coverage report printed (coverage.py and pytest-cov's `TOTAL … 96%`; Jest's and
 * Vitest's `All files | 96.5 | …`, its statements; after pnpm's `packages/api test: ` too), when
 * under 100 %: a run passes whatever its coverage unless told to fail under a floor, and "passed"
 * alone hid that the code it was run for was not all run (deep-manifest at 160: 96 %, where the
 * project asks for 100 %). Several reports (a monorepo's packages) are said as several.
 */
const COVERAGE_TOTAL = /^(?:[\w@/.-]{1,80} [\w:-]{1,20}: )?(?:TOTAL(?:[ \t]+\d+){2,4}[ \t]+(\d{1,3}(?:\.\d{1,2})?)%|All files[ \t]*\|[ \t]*(\d{1,3}(?:\.\d{1,2})?)[ \t]*\|)/gm;

/**
 * The lines a coverage report says no test ran, per file: coverage.py's and pytest-cov's `Missing`
 * column (`163->165, 169`: the branch arcs are left out, they are no line) and Jest's and Vitest's
 * `Uncovered Line #s` (`12-15,20`), each file the table lists (its spans empty when nothing is
 * missing). Null when the text holds no such table. At most 160 files, each file's spans to 400
 * characters.
 */
export function coverageMissing(text: string): { file: string; spans: string; partial?: true }[] | null {
  const py = text.indexOf('Missing');
  const js = text.indexOf('Uncovered Line');
  if (py === -1 && js === -1) return null;
  const out: { file: string; spans: string; partial?: true }[] = [];
  let table = false;
  for (const raw of text.split('\n')) {
    const l = raw.replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
    if (/^Name\s+Stmts\s+Miss\b.*\bMissing$/.test(l) || /^\s*File\s*\|.*\|\s*Uncovered Line #s\s*\|?$/.test(l)) {
      table = true;
      continue;
    }
    if (!table) continue;
    const p = /^(\S+)\s+\d+\s+\d+(?:\s+\d+\s+\d+)?\s+(\d{1,3}(?:\.\d+)?)%(?:\s+(.+))?$/.exec(l);
    const j = p === null ? /^\s*([^|]+?)\s*\|\s*([\d.]+)\s*\|(?:\s*[\d.]+\s*\|){3}\s*([^|]*?)\s*\|?$/.exec(l) : null;
    const m = p ?? j;
    if (m === null) continue;
    const file = (m[1] as string).trim();
    if (file === 'TOTAL' || file === 'All files') continue;
    const spans = (m[3] ?? '').split(/,\s*/).filter((x) => /^\d+(?:-\d+)?$/.test(x.trim())).join(', ');
    // A file with nothing missing is listed too (its spans empty), and one whose only misses are
    // branches (`41->43`, under 100 %) as such: a later report that lists a file wholly covered
    // settles a claim an earlier one contradicted; one with a branch missing does not.
    const row: { file: string; spans: string; partial?: true } = { file: file.slice(0, 300), spans: spans.slice(0, 400) };
    if (spans === '' && Number(m[2]) < 100) row.partial = true;
    if (out.length < 160) out.push(row);
  }
  return table ? out : null;
}

/** Whether a report's spans (`12-15, 20`) hold a line. */
export function spansHold(spans: string, line: number): boolean {
  for (const part of spans.split(', ')) {
    const [a, b] = part.split('-').map(Number);
    if (a !== undefined && (b === undefined ? a === line : a <= line && line <= b)) return true;
  }
  return false;
}

function withCoverage(text: string, line: string | null): string | null {
  if (line === null || line.includes('coverage') || (!text.includes('TOTAL') && !text.includes('All files'))) return line;
  const totals = [...text.matchAll(COVERAGE_TOTAL)].map((m) => Number(m[1] ?? m[2]));
  const low = totals.filter((t) => t < 100);
  if (low.length === 0) return line;
  // Several reports (a monorepo's packages): each is its package's, none the whole's.
  return totals.length === 1 ? `${line}; coverage ${totals[0]} % in total` : `${line}; ${low.length} of its ${totals.length} coverage reports under 100 %, the lowest ${Math.min(...low)} %`;
}

/**
 * ESLint's warnings, which leave its exit code 0: stylish's `  211:11  warning  'x' is … rule` and
 * `next lint`'s `211:11  Warning: 'x' is …  rule`, each under its file's line. A run that passed
 * with warnings said only "passed" and its last line, Next.js's advice (agentcmd at 519: the one
 * warning, `'teamLead' is assigned a value but never used`, was the bug the session was about to find).
 */
const LINT_WARNING = /^\s*(\d+:\d+)\s+(?:Warning:|warning)\s+(.+?)\s*$/gm;

function withWarnings(kind: CheckKind, text: string, line: string | null): string | null {
  // A line that counts them already says them ("✖ 2 problems (0 errors, 2 warnings)").
  if (line === null || /\b\d+ warnings?\b/i.test(line)) return line;
  const found = [...text.matchAll(LINT_WARNING)];
  if (found.length === 0) return line;
  const first = found[0] as RegExpMatchArray;
  // Its file: the nearest line above it that starts at the margin, and is a path (a log's
  // `02:00  Warning: …` under `> vitest run` is no linter's).
  const above = text.slice(0, first.index ?? 0).split('\n').map((l) => l.trimEnd()).filter((l) => l.length > 0);
  const file = [...above].reverse().find((l) => !/^\s/.test(l) && !/^\d+:\d+/.test(l));
  if (file === undefined || file.length > 160 || !/^(?:\.{0,2}[\\/]|[A-Za-z]:[\\/]|[\w@.-]+[\\/])?[\w@.[\]() \\/-]*\.[A-Za-z]{1,5}$/.test(file)) return line;
  const what = `${fileName(file)} ${first[1] as string}: ${(first[2] as string).replace(/\s{2,}/g, ' ')}`;
  // What it printed may be cut (`| head -20`): the count is of the lines shown.
  const warned = `warnings (${found.length} in what it printed), the first: ${what.length > 200 ? `${what.slice(0, 199)}…` : what}`;
  // A linter's warnings are what it was run for: first. A build's come after its verdict.
  return kind === 'lint' ? `${warned} — ${line}` : `${line}; ${warned}`;
}

/** `ok` is the harness's own verdict (Claude's is_error), used when no exit code is recorded. */
export function decideOutcome(kind: CheckKind, exitCode: number | undefined, ok: boolean | undefined, output: string): Decided {
  const text = output.replace(/\r/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  // A traceback is the verdict only when no line of the tool's own says one: pytest's "1 failed"
  // beats the asyncio traceback Windows prints at shutdown ("Exception ignored in: …").
  const fail = withCause(text, lastMatch(text, FAIL_LINES) ?? lastMatch(text, TRACEBACK_LINE));
  const pass = lastMatch(text, PASS_LINES);
  // pytest's exit 5: the selection matched no test. The run failed (the command did not do what it
  // was run for), but nothing was checked either way: no failure of the code is opened by it. A path
  // it could not find (its exit 4, "no tests ran" too) is a failure: the tests named are not there.
  if ((exitCode === 5 || (exitCode === undefined && ok === false)) && /\bno tests ran\b|=+ \d+ deselected in|collected 0 items/.test(text) && !/\b\d+ (?:passed|failed)\b/.test(text) && !NOT_FOUND.test(text)) {
    return { outcome: 'fail', line: lastLine(text), nothingRan: true };
  }
  // The missing path says what failed; pytest's "no tests ran" after it says only that nothing ran.
  const missing = (exitCode !== undefined && exitCode !== 0) || ok === false ? /^(?:ERROR|error): (?:file or directory not found|file not found|not found):? .*$/m.exec(text) : null;
  if (missing !== null) return { outcome: 'fail', line: missing[0].trim() };
  if (exitCode !== undefined && exitCode !== 0) return { outcome: 'fail', line: fail ?? lastLine(text) };
  // A CI run's verdict is its jobs' (`act`: "🏁  Job succeeded"): a step allowed to fail
  // (`continue-on-error`, pyright's "17 errors" inside the job's log) does not fail it
  // (claude-code-log fe869ecb at 44: both jobs succeeded, and the run was listed as failed).
  const jobs = [...text.matchAll(/^.*\bJob (succeeded|failed)\b.*$/gm)];
  const allJobs = jobs.length > 0 && jobs.every((m) => m[1] === 'succeeded') && ok !== false;
  if (allJobs && fail === null) return { outcome: 'pass', line: jobs.length === 1 ? (jobs[0] as RegExpMatchArray)[0].trim() : `${(jobs[jobs.length - 1] as RegExpMatchArray)[0].trim()} (all ${jobs.length} jobs succeeded)` };
  // A step failed inside jobs that all succeeded (`continue-on-error`): the check it ran failed, and
  // the run as CI judges it did not; both are said (claude-code-log fe869ecb at 44, pyright's 17
  // errors in two jobs that succeeded, read as a failed run).
  if (allJobs && fail !== null) return { outcome: 'fail', line: `${fail} — in a step allowed to fail: every job succeeded (${jobs.length === 1 ? 'the job' : `all ${jobs.length}`})` };
  if (fail !== null) return { outcome: 'fail', line: fail };
  if (exitCode === 0 || ok === true) return { outcome: 'pass', line: withWarnings(kind, text, withCoverage(text, cargoSum(text, pass) ?? lastLine(text))) };
  if (ok === false) return { outcome: 'fail', line: lastLine(text) };
  if (pass !== null) return { outcome: 'pass', line: withWarnings(kind, text, withCoverage(text, cargoSum(text, pass))) };
  return { outcome: 'unknown', line: lastLine(text) };
}

/**
 * Of checks run one after another, the last whose start the output shows: a package manager's
 * script header (`> web@0.1.0 build`, npm and pnpm) or, for `npm audit`, its own lines. -1 when no
 * check after the first shows one. In a chain joined by `&&`, every check before it passed.
 */
export function lastStarted(keys: readonly string[], output: string): number {
  for (let i = keys.length - 1; i >= 1; i -= 1) {
    const m = /^(?:npm|pnpm) (\S+)$/.exec(keys[i] as string);
    if (m === null) continue;
    const script = m[1] as string;
    const started = script === 'audit' ? AUDIT_LINES.test(output) : output.split('\n').some((l) => scriptHeader(l) === script);
    if (started) return i;
  }
  return -1;
}

const AUDIT_LINES = /^(?:npm (?:warn|error|ERR!) audit\b|# npm audit report\b|found \d+ vulnerabilit)/m;

/** The script a package manager's header line names: `> web@0.1.0 build` (npm), `> web@0.1.0 build /repo` (pnpm). */
function scriptHeader(line: string): string | null {
  const m = /^> \S+@\S+ (\S+)(?: \S.*)?$/.exec(line);
  return m === null ? null : (m[1] as string);
}

/** The last line of an output that says something (not a wall-time header, not blank). */
export function lastLine(text: string): string | null {
  const lines = text.split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const l = lines[i] as string;
    // Claude Code adds `Shell cwd was reset to <dir>` after a command that left its folder: the harness's note, not the command's output.
    if (l.length === 0 || /^(Wall time|Output:|Script completed|Exit code:?|Process exited|Chunk ID|Original token count|Shell cwd was reset to )/.test(l) || l === '…') continue;
    return l.length > 240 ? `${l.slice(0, 239)}…` : l;
  }
  return null;
}
