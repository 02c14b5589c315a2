import { Memo } from './memo.js';
/**
 * What a shell command does, read from its text: the files it plainly writes, the checks it runs
 * (tests, builds, type checks, linters, format checks), whether it only starts something in the
 * background, and git commits and pushes. Pure and deliberately conservative: a command this
 * module cannot read is "other", never guessed into a check or a write.
 */

export type CheckKind = 'test' | 'build' | 'typecheck' | 'lint' | 'format';

export interface CheckTarget {
  kind: CheckKind;
  /** What the run checks, normalized so two runs of the same target compare equal. */
  key: string;
  /** The tool (pytest, cargo test, npm run build, …), for "the whole suite passed" matching. */
  tool: string;
  /** Path arguments (basenames): empty when the run covers the tool's whole scope. */
  paths: string[];
}

export interface ShellWrite {
  path: string;
  how: 'write' | 'append' | 'copy' | 'move' | 'delete' | 'edit';
  /**
   * The command succeeds whether or not the file was there (`rm -f`): its success proves a
   * deletion only of a file the session is known to have had (ledger.ts noteWrites).
   */
  ifExists?: true;
  /** What a redirect writes, when the command is an `echo` of short literal words (`echo "[]" > data/raw/issues.json`: a stub, not data). */
  text?: string;
  /** A package manager's manifest or lock file, rewritten by a change of dependencies (manifestWrites): its own summary may prove it (dependenciesChanged). */
  manager?: true;
}

const BACKSLASH = 92;
const SINGLE = 39;
const DOUBLE = 34;
const NEWLINE = 10;
const AMP = 38;
const PIPE = 124;
const SEMI = 59;

/**
 * Splits a command line into simple commands at `&&`, `||`, `;`, `|` and newlines, outside quotes
 * (with `keepPipes`, into pipelines: `|` does not split).
 * Every command of a session is split several times (its writes, its checks, its git steps, its
 * key): the text is read by character code and copied in runs, never a character at a time.
 */
export function segments(command: string, keepPipes = false): string[] {
  const out: string[] = [];
  const n = command.length;
  let cur = '';
  // Start of the run of characters kept as they stand, not yet added to `cur`.
  let from = 0;
  let quote = 0;
  for (let i = 0; i < n; i += 1) {
    const c = command.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
      else if (c === BACKSLASH && quote === DOUBLE && i + 1 < n) i += 1;
      continue;
    }
    if (c === SINGLE || c === DOUBLE) {
      quote = c;
      continue;
    }
    if (c === BACKSLASH && i + 1 < n) {
      // A line continuation joins the lines; any other escape stays as written.
      if (command.charCodeAt(i + 1) === NEWLINE) {
        cur += command.slice(from, i);
        from = i + 2;
      }
      i += 1;
      continue;
    }
    const next = command.charCodeAt(i + 1);
    if ((c === AMP || c === PIPE) && next === c) {
      out.push(cur + command.slice(from, i));
      cur = '';
      i += 1;
      from = i + 1;
      continue;
    }
    if (c === SEMI || c === NEWLINE || (c === PIPE && next !== AMP && !keepPipes)) {
      out.push(cur + command.slice(from, i));
      cur = '';
      from = i + 1;
    }
  }
  out.push(cur + command.slice(from));
  // A subshell's parentheses are grouping, not part of the command: `(cd x && pytest)`.
  const kept: string[] = [];
  for (const seg of out) {
    let s = seg.trim();
    if (s.charCodeAt(0) === 40) s = s.replace(/^\(+\s*/, '');
    if (s.endsWith(')')) s = s.replace(/\s*\)+$/, '');
    s = s.trim();
    if (s.length > 0) kept.push(s);
  }
  return kept;
}

/** `/\s/.test(c)` without a regular expression for the common ASCII case (this runs per character). */
function isSpace(n: number): boolean {
  if (n < 128) return n === 32 || (n >= 9 && n <= 13);
  return /\s/.test(String.fromCharCode(n));
}

/** Words of one simple command, quotes removed (no expansion: `$X` stays `$X`). */
export function words(segment: string): string[] {
  const out: string[] = [];
  const n = segment.length;
  let cur = '';
  // Start of the run of characters kept as they stand, not yet added to `cur`.
  let from = 0;
  let started = false;
  let quote = 0;
  for (let i = 0; i < n; i += 1) {
    const c = segment.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) {
        cur += segment.slice(from, i);
        from = i + 1;
        quote = 0;
      } else if (c === BACKSLASH && quote === DOUBLE && i + 1 < n) {
        cur += segment.slice(from, i);
        from = i + 1;
        i += 1;
      }
      continue;
    }
    if (c === SINGLE || c === DOUBLE) {
      cur += segment.slice(from, i);
      from = i + 1;
      quote = c;
      started = true;
      continue;
    }
    if (c === BACKSLASH && i + 1 < n) {
      cur += segment.slice(from, i);
      from = i + 1;
      i += 1;
      started = true;
      continue;
    }
    if (isSpace(c)) {
      if (started) out.push(cur + segment.slice(from, i));
      cur = '';
      from = i + 1;
      started = false;
      continue;
    }
    started = true;
  }
  if (started) out.push(cur + segment.slice(from));
  return out;
}

const ENV_ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** git's options before its subcommand that take the next word as their value. */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env']);

/**
 * Past git's own options from `at` (the word after `git`): where its subcommand is, and the folder
 * its `-C`s name (several join, each relative to the one before; null for none).
 */
function gitOptions(ws: readonly string[], at: number): { sub: number; dir: string | null } {
  let dir: string | null = null;
  let i = at;
  while (i < ws.length && (ws[i] as string).startsWith('-')) {
    const v = ws[i + 1];
    if (ws[i] === '-C' && v !== undefined && v.length > 0) dir = dir === null || /^(?:\/|[A-Za-z]:[\\/]|~)/.test(v) ? v : `${dir}/${v}`;
    i += GIT_VALUED.has(ws[i] as string) ? 2 : 1;
  }
  return { sub: i, dir };
}
/** Words that run the next word: `uv run pytest` is pytest. */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nohup', 'exec', 'command', 'npx', 'pnpx', 'bunx', 'timeout', 'xargs', 'nice', 'stdbuf']);
const RUNNERS: Record<string, number> = { uv: 1, poetry: 1, pipenv: 1, hatch: 1, pdm: 1, rye: 1, conda: 1 };

/** Drops `cd`, `source`, env assignments and wrappers, leaving the program and its arguments. */
function program(ws: readonly string[]): string[] {
  let w = ws as string[];
  for (;;) {
    const first = w[0];
    if (first === undefined) return w;
    if (ENV_ASSIGN.test(first)) {
      w = w.slice(1);
      continue;
    }
    if (first === 'timeout') {
      w = w.slice(1);
      while (w[0] !== undefined && /^(-|\d)/.test(w[0])) w = w.slice(1);
      continue;
    }
    if (WRAPPERS.has(first)) {
      w = w.slice(1);
      while (w[0] !== undefined && w[0].startsWith('-')) w = w.slice(1);
      continue;
    }
    const skip = RUNNERS[first];
    if (skip !== undefined && w[1] === 'run') {
      w = w.slice(2);
      while (w[0] !== undefined && w[0].startsWith('-')) w = w.slice(w[0].includes('=') ? 1 : 2);
      continue;
    }
    // git's own options before its subcommand (`git -C repo status`, `git -c k=v log`, `git --no-pager diff`):
    // the subcommand is what the session ran. Where `-C` points, gitDir says.
    if (w.length > 1 && strip(base(first)) === 'git' && (w[1] as string).startsWith('-')) return [first, ...w.slice(gitOptions(w, 1).sub)];
    if ((first === 'python' || first === 'python3' || /^python3\.\d+$/.test(first)) && w[1] === '-m' && w[2] !== undefined) {
      w = w.slice(2);
      continue;
    }
    return w;
  }
}

/** The last part of a path; a bare name (the common case: `pytest`, `git`) is its own. */
const base = (p: string): string => (!p.includes('/') && !p.includes('\\') ? p : (p.replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop() ?? p));
const strip = (w: string): string => w.replace(/\.(cmd|exe|ps1)$/i, '');
const isPathArg = (w: string): boolean => !w.startsWith('-') && /[/.]/.test(w) && !/^\d/.test(w) && !w.includes('=');

/** Only these scripts of a package manager are checks (`npm run dev` is not). */
const SCRIPT_KIND: [RegExp, CheckKind][] = [
  [/^(test|tests|test:[\w:-]+|e2e|coverage|ci)$/, 'test'],
  [/^(build|build:[\w:-]+|compile|bundle)$/, 'build'],
  [/^(typecheck|type-check|check-types|types|tsc|check)$/, 'typecheck'],
  [/^(lint|lint:[\w:-]+|eslint|audit)$/, 'lint'],
  [/^(format:check|fmt:check|prettier:check|check-format)$/, 'format'],
];

function scriptKind(script: string): CheckKind | null {
  for (const [re, kind] of SCRIPT_KIND) if (re.test(script)) return kind;
  return null;
}

const PM = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PM_BUILTINS = new Set(['install', 'i', 'ci', 'add', 'remove', 'uninstall', 'update', 'exec', 'dlx', 'create', 'init', 'publish', 'link', 'view', 'info', 'outdated', 'why', 'list', 'ls', 'start', 'dev', 'serve', 'preview', 'config', 'set', 'cache', 'store', 'version', 'pack']);

function packageManagerCheck(ws: string[]): CheckTarget | null {
  const pm = strip(ws[0] ?? '');
  let rest = ws.slice(1);
  let filter = '';
  // pnpm --filter @repo/x lint, yarn workspace x build, npm -w x test
  for (;;) {
    const a = rest[0];
    if (a === undefined) break;
    if (a === '--filter' || a === '-F' || a === '-w' || a === '--workspace' || a === '--prefix' || a === '-C' || a === '--dir') {
      filter = rest[1] ?? '';
      rest = rest.slice(2);
      continue;
    }
    if (a.startsWith('--filter=') || a.startsWith('--workspace=')) {
      filter = a.slice(a.indexOf('=') + 1);
      rest = rest.slice(1);
      continue;
    }
    if (pm === 'yarn' && a === 'workspace') {
      filter = rest[1] ?? '';
      rest = rest.slice(2);
      continue;
    }
    if (a.startsWith('-')) {
      rest = rest.slice(1);
      continue;
    }
    break;
  }
  if (rest[0] === 'run' || rest[0] === 'run-script') rest = rest.slice(1);
  const script = rest[0];
  if (script === undefined || PM_BUILTINS.has(script)) return null;
  if (script === 'audit') return { kind: 'lint', key: `${pm} audit`, tool: `${pm} audit`, paths: [] };
  const kind = scriptKind(script);
  if (kind === null) return null;
  const paths = rest.slice(1).filter(isPathArg).map(base);
  const tool = `${pm} ${script}${filter ? ` ${filter}` : ''}`;
  return { kind, key: targetKey(tool, paths), tool, paths };
}

function targetKey(tool: string, paths: readonly string[]): string {
  return paths.length === 0 ? tool : `${tool} ${[...paths].sort().join(' ')}`;
}

/** Flags that make a run inspect rather than check: it never fails on the code. */
const NOT_A_RUN = /^(--collect-only|--co|--markers|--fixtures|--help|-h|--version|-V|--list|--listTests|--showConfig)$/;

/** `tool` with these subcommands (or none, `''`) is a check of that kind. */
const TOOLS: Record<string, [CheckKind, string[] | null]> = {
  pytest: ['test', null],
  'py.test': ['test', null],
  unittest: ['test', null],
  jest: ['test', null],
  vitest: ['test', null],
  mocha: ['test', null],
  ava: ['test', null],
  rspec: ['test', null],
  phpunit: ['test', null],
  ctest: ['test', null],
  tox: ['test', null],
  nox: ['test', null],
  playwright: ['test', ['test']],
  cypress: ['test', ['run']],
  tsc: ['typecheck', null],
  'vue-tsc': ['typecheck', null],
  mypy: ['typecheck', null],
  pyright: ['typecheck', null],
  basedpyright: ['typecheck', null],
  ty: ['typecheck', ['check']],
  eslint: ['lint', null],
  flake8: ['lint', null],
  pylint: ['lint', null],
  shellcheck: ['lint', null],
  golangci: ['lint', null],
  'golangci-lint': ['lint', ['run']],
  stylelint: ['lint', null],
  biome: ['lint', ['check', 'lint', 'ci']],
  rubocop: ['lint', null],
  hadolint: ['lint', null],
  'markdownlint': ['lint', null],
  'markdownlint-cli2': ['lint', null],
  act: ['test', null],
};

function toolCheck(ws: string[]): CheckTarget | null {
  const tool = strip(base(ws[0] ?? ''));
  const args = ws.slice(1);
  if (args.some((a) => NOT_A_RUN.test(a))) return null;
  const paths = (list: string[]): string[] => list.filter(isPathArg).map((p) => base(p.split('::')[0] ?? p));
  switch (tool) {
    case 'cargo': {
      const sub = args.find((a) => !a.startsWith('-') && !a.startsWith('+'));
      const kinds: Record<string, CheckKind> = { test: 'test', build: 'build', check: 'typecheck', clippy: 'lint', nextest: 'test', bench: 'test' };
      if (sub === 'fmt') return args.includes('--check') ? { kind: 'format', key: 'cargo fmt --check', tool: 'cargo fmt --check', paths: [] } : null;
      // `cargo test --no-run` compiles the tests and runs none: a build of its own, not a run of the
      // suite (edgerunner at 650 counted `cargo test --workspace`'s runs under its row).
      if ((sub === 'test' || sub === 'bench') && args.includes('--no-run')) return { kind: 'build', key: `cargo ${sub} --no-run`, tool: `cargo ${sub} --no-run`, paths: [] };
      const kind = sub === undefined ? undefined : kinds[sub];
      return kind === undefined ? null : { kind, key: `cargo ${sub}`, tool: `cargo ${sub}`, paths: [] };
    }
    case 'go': {
      const sub = args[0];
      const kinds: Record<string, CheckKind> = { test: 'test', build: 'build', vet: 'lint' };
      const kind = sub === undefined ? undefined : kinds[sub];
      if (kind === undefined) return null;
      const p = args.slice(1).filter((a) => !a.startsWith('-') && a !== './...').map(base);
      return { kind, key: targetKey(`go ${sub}`, p), tool: `go ${sub}`, paths: p };
    }
    case 'ruff': {
      const sub = args[0];
      if (sub === 'format') return args.includes('--check') ? { kind: 'format', key: targetKey('ruff format --check', paths(args.slice(1))), tool: 'ruff format --check', paths: paths(args.slice(1)) } : null;
      if (sub === 'check' || (sub !== undefined && isPathArg(sub))) {
        if (args.includes('--fix') || args.includes('--watch')) {
          // A fixing run still fails on what it cannot fix: it is a lint run.
        }
        const p = paths(sub === 'check' ? args.slice(1) : args);
        return { kind: 'lint', key: targetKey('ruff check', p), tool: 'ruff check', paths: p };
      }
      return null;
    }
    case 'black':
    case 'prettier':
    case 'gofmt':
    case 'isort': {
      const checking = args.some((a) => a === '--check' || a === '-c' || a === '--diff' || a === '-l' || a === '--list-different');
      if (!checking) return null;
      const p = paths(args);
      return { kind: 'format', key: targetKey(`${tool} --check`, p), tool: `${tool} --check`, paths: p };
    }
    case 'make':
    case 'just': {
      const target = args.find((a) => !a.startsWith('-') && !a.includes('='));
      if (target === undefined) return { kind: 'build', key: tool, tool, paths: [] };
      const kind = scriptKind(target);
      return kind === null ? null : { kind, key: `${tool} ${target}`, tool: `${tool} ${target}`, paths: [] };
    }
    case 'mvn':
    case 'mvnw':
    case 'gradle':
    case 'gradlew':
    case 'dotnet':
    case 'swift':
    case 'mix':
    case 'deno':
    case 'next':
    case 'vite':
    case 'docker': {
      const sub = args.find((a) => !a.startsWith('-'));
      if (sub === undefined) return null;
      const kinds: Record<string, CheckKind> = { test: 'test', build: 'build', package: 'build', compile: 'build', verify: 'test', check: 'typecheck', lint: 'lint' };
      if (tool === 'docker' && sub !== 'build') return null;
      const kind = kinds[sub];
      return kind === undefined ? null : { kind, key: `${tool} ${sub}`, tool: `${tool} ${sub}`, paths: [] };
    }
    case 'uv': {
      // Installing the project itself builds it: `uv tool install .`, `uv tool upgrade --reinstall x`, `uv build`.
      if (args[0] === 'build') return { kind: 'build', key: 'uv build', tool: 'uv build', paths: [] };
      if (args[0] !== 'tool') return null;
      const local = args.slice(2).some((a) => a === '.' || a.startsWith('./') || a.startsWith('/') || a.startsWith('../'));
      if ((args[1] === 'install' && local) || (args[1] === 'upgrade' && args.includes('--reinstall'))) return { kind: 'build', key: 'uv tool install', tool: 'uv tool install', paths: [] };
      return null;
    }
    case 'pip':
    case 'pip3': {
      const local = args[0] === 'install' && args.slice(1).some((a) => a === '.' || a === '-e' || a.startsWith('./'));
      return local ? { kind: 'build', key: 'pip install .', tool: 'pip install .', paths: [] } : null;
    }
    case 'python':
    case 'python3':
      return args[0] === '-c' && args[1] !== undefined ? importCheck(args[1]) : null;
    case 'bun':
      if (args[0] === 'test') return { kind: 'test', key: targetKey('bun test', paths(args.slice(1))), tool: 'bun test', paths: paths(args.slice(1)) };
      return packageManagerCheck(ws);
    default:
      break;
  }
  if (PM.has(tool)) return packageManagerCheck([tool, ...args]);
  const known = TOOLS[tool];
  if (known === undefined) return null;
  if (tool === 'act' && args.some((a) => a === '-l' || a === '--list' || a === '-n' || a === '--dryrun')) return null;
  const [kind, subs] = known;
  if (subs !== null && !subs.includes(args[0] ?? '')) return null;
  const rest = subs === null ? args : args.slice(1);
  // `act -j test` runs a CI job locally: it is a test run of that job.
  const p = tool === 'act' ? [] : paths(rest);
  const name = subs === null ? tool : `${tool} ${args[0]}`;
  return { kind, key: targetKey(name, p), tool: name, paths: p };
}

/** A Python statement an import check may hold besides its imports: a path set up, a fixed message printed. */
const IMPORT_STMT = /^(?:import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)|from\s+([\w.]+)\s+import\s+[\w\s,*()]+)$/;
const SETUP_STMT = /^(?:sys\.path\.(?:insert|append)\([^()]*\)|print\(\s*(['"])[^'"]*\1\s*\))$/;
/** Modules whose import proves nothing about the session's code. */
const SETUP_MODULES = new Set(['sys', 'os']);

/**
 * `python -c "import sys; sys.path.insert(0, 'src'); import analyze; print('ok')"`: a smoke test
 * that the named modules load (a syntax or import error fails it). Only code that imports, sets up
 * `sys.path` and prints a fixed message counts: code that calls anything else is a script, not a check.
 */
function importCheck(code: string): CheckTarget | null {
  const modules: string[] = [];
  for (const raw of code.split(/[;\n]/)) {
    const stmt = raw.trim();
    if (stmt === '' || SETUP_STMT.test(stmt)) continue;
    const m = IMPORT_STMT.exec(stmt);
    if (!m) return null;
    const names = m[2] !== undefined ? [m[2]] : (m[1] ?? '').split(',').map((x) => x.trim().split(/\s+/)[0] ?? '');
    for (const name of names) if (name !== '' && !SETUP_MODULES.has(name) && !modules.includes(name)) modules.push(name);
  }
  if (modules.length === 0) return null;
  const tool = `python import ${modules.join(' ')}`;
  return { kind: 'test', key: tool, tool, paths: [] };
}

/** Every simple command of it joined by `&&` (none by `;`, `||`, `|` or a new line, none quoted): each ran only if the one before passed. */
export function andChain(command: string): boolean {
  return segments(command).length === command.split('&&').length;
}

/** Words that end a command named in prose (`run pnpm build and commit`). */
const PROSE_STOP = new Set(['and', 'then', 'either', 'too', 'also', 'now', 'please', 'locally', 'yourself', 'to', 'on', 'with', 'before', 'after', 'again', 'first', 'once', 'until', 'so', 'for', 'in', 'if', 'when', 'or']);

/**
 * The checks a user's words ask for: commands in backticks, and those after "run" (FundWise: «run
 * pnpm build, commit the feature separately»), each with its targets. Only what checkTargets takes
 * for a check counts ("run the tests" names none).
 */
export function checksNamedIn(text: string): { command: string; targets: CheckTarget[] }[] {
  const found: { command: string; targets: CheckTarget[] }[] = [];
  const add = (command: string): void => {
    const c = command.trim();
    if (c.length === 0 || found.some((f) => f.command === c)) return;
    const targets = checkTargets(c);
    if (targets.length > 0) found.push({ command: c, targets });
  };
  for (const m of text.matchAll(/`([^`\n]{2,160})`/g)) add(m[1] as string);
  for (const m of text.matchAll(/\b(?:run|rerun|re-run|execute)[ \t]+([A-Za-z][\w.-]*(?:[ \t]+[\w:./=@-]+){0,4})/gi)) {
    // "Don't run the e2e suite", "no need to run pytest": asked not to. "When you run pytest",
    // "e.g. run mypy": a case a text describes (coderabbit at 262: uv's documentation, pasted,
    // said "when running pytest or mypy", and pytest was said to be asked for).
    const before = text.slice(Math.max(0, m.index - 30), m.index);
    if (/\b(?:don'?t|do not|never|no need to|without|not|skip|instead of)(?:[ \t]+\w+){0,2}[ \t]*$/i.test(before) || /\b(?:when|whenever|if|e\.g\.,?|such as|for example,?)(?:[ \t]+\w+){0,2}[ \t]*$/i.test(before)) continue;
    const kept: string[] = [];
    for (const w of (m[1] as string).split(/[ \t]+/)) {
      const bare = w.replace(/[.:]+$/, '');
      if (kept.length > 0 && PROSE_STOP.has(bare.toLowerCase())) break;
      kept.push(bare);
      if (bare !== w) break; // the sentence ends with it
    }
    add(kept.join(' '));
  }
  return found.slice(0, 5);
}

/**
 * The checks a command runs, one per simple command that is a check. `programs` are executables
 * the session itself installed from its own source: running one is a smoke test of the build.
 */
export function checkTargets(command: string, programs: readonly string[] = []): CheckTarget[] {
  const out: CheckTarget[] = [];
  for (const seg of segments(command)) {
    const ws = program(words(seg.replace(/\s[0-9]?>>?\s*\S+|\s2>&1/g, ' ')));
    if (ws.length === 0) continue;
    const name = base(ws[0] ?? '');
    const t = programs.includes(name) ? { kind: 'test' as const, key: `run ${name}`, tool: `run ${name}`, paths: [] } : toolCheck(ws);
    if (t && !out.some((o) => o.key === t.key)) out.push(t);
  }
  return out;
}

/** Commands that only shape or show another command's output, or set up its shell. */
const PLUMBING = new Set(['tail', 'head', 'grep', 'rg', 'sort', 'uniq', 'wc', 'less', 'more', 'cat', 'tee', 'echo', 'printf', 'cd', 'source', '.', 'export', 'set', 'true', 'sleep', 'jq']);

/**
 * What a command runs, for "the same command later succeeded": its programs and their arguments,
 * without `cd`, `source`, redirects and the `| tail -25` that shows its output.
 */
export function commandKey(command: string): string {
  const parts: string[] = [];
  for (const seg of segments(command)) {
    const ws = program(words(seg.replace(/\s[0-9&]?>>?\s*\S+/g, ' ')));
    if (ws.length === 0 || PLUMBING.has(base(ws[0] ?? ''))) continue;
    parts.push(ws.join(' '));
  }
  return parts.length === 0 ? command.trim() : parts.join(' && ');
}

/** A command that only starts a long-running process (a server, a watcher) and returns. */
export function startsInBackground(command: string): boolean {
  const t = command.trim();
  if (/(^|[^&])&\s*$/.test(t) || /(^|[^&])&\s*(\n|;|$)/.test(t)) return true;
  return /\b(nohup|setsid|disown)\b/.test(t) || /\bStart-Process\b/i.test(t);
}

/** Git writes of the commits a command's output reports: `[branch abc1234] subject`. */
export function commitsInOutput(output: string): { branch: string; hash: string; subject: string; files?: number }[] {
  const out: { branch: string; hash: string; subject: string; files?: number }[] = [];
  const heads = [...output.matchAll(/^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/gm)];
  heads.forEach((m, i) => {
    const [, branch, hash, subject] = m;
    if (branch === undefined || hash === undefined || subject === undefined || out.some((c) => c.hash === hash)) return;
    // Its summary line, before the next commit's header: ` 7 files changed, 120 insertions(+)`.
    const body = output.slice((m.index ?? 0) + m[0].length, heads[i + 1]?.index ?? output.length);
    const files = /^ (\d{1,7}) files? changed\b/m.exec(body)?.[1];
    out.push(files === undefined ? { branch, hash, subject: subject.trim() } : { branch, hash, subject: subject.trim(), files: Number(files) });
  });
  return out;
}

/**
 * The branch updates a push's output reports (`abc..def  main -> main`, `* [new branch] x -> x`),
 * each with the `To <url>` line it follows ('' when none): `git push`, `gh repo create --push`.
 */
export function pushesInOutput(output: string): { from: string; to: string; branch: string; url: string; dst: string }[] {
  const out: { from: string; to: string; branch: string; url: string; dst: string }[] = [];
  // `git pull --rebase && git push` prints the fetch's updates (under `From <url>`:
  // `bf5434b..1af6918  main -> origin/main`) before the push's (under `To <url>`): only a push's count.
  let fetching = false;
  let url = '';
  for (const line of output.split('\n')) {
    if (/^From\s+\S/.test(line)) fetching = true;
    else if (/^To\s+\S/.test(line)) {
      fetching = false;
      url = line.slice(3).trim();
    }
    if (fetching) continue;
    const m = /^\s*(?:\+\s*)?(?:([0-9a-f]{7,40})\.\.\.?([0-9a-f]{7,40})|\* \[new (?:branch|tag)\])\s+(\S+)\s+->\s+(\S+)/.exec(line);
    if (m) out.push({ from: m[1] ?? '', to: m[2] ?? '', branch: m[3] ?? '', url, dst: m[4] ?? '' });
  }
  return out;
}

/** The subject a `git commit -m "…"` (or `git merge -m "…"`) gives (the first line of its first message). */
export function commitMessage(command: string): string | null {
  const m = /\bgit\b[^\n]*?\b(?:commit|merge)\b[^\n]*?\s-(?:a?m)\s+(?:"\$\(cat <<-?['"]?(\w+)['"]?\n\s*([^\n]+)|"((?:[^"\\]|\\.)+)"|'([^']+)')/.exec(command);
  const text = m?.[2] ?? m?.[3] ?? m?.[4];
  const first = text?.split('\n')[0]?.trim();
  return first === undefined || first.length < 4 ? null : first.replace(/\\"/g, '"');
}

/** `hash rest` lines of a log (`git log --oneline`, `--pretty="%h %ai %s"`). */
export function logLines(output: string): { hash: string; rest: string }[] {
  const out: { hash: string; rest: string }[] = [];
  for (const m of output.matchAll(/^(?:[*|\\/_.\- ]+)?([0-9a-f]{7,40}) (.+)$/gm)) out.push({ hash: m[1] as string, rest: (m[2] as string).trim() });
  return out;
}

/**
 * What a command's simple commands run (program and arguments), read once per command: a call's
 * command is read again when its result comes, by several of the tests below. The last few
 * commands are remembered; the arrays are shared, so callers never change them.
 */
const programsMemo = new Memo<readonly (readonly string[])[]>(16);

function programs(command: string): readonly (readonly string[])[] {
  return programsMemo.get(command, (c) => segments(c).map((seg) => program(withoutRedirects(words(seg)))));
}

/** Programs that print a file's or a repository's text: their output is not what the session's code prints. */
const SHOWS_FILES = new Set(['cat', 'head', 'tail', 'less', 'more', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'sed', 'awk', 'git', 'gh', 'diff', 'find', 'ls', 'jq', 'bat', 'nl', 'xxd', 'od', 'strings', 'type', 'get-content', 'gc', 'select-string', 'findstr', 'echo', 'printf', 'tree', 'wc', 'sort', 'uniq', 'cut', 'tr', 'column', 'fold']);
/** Of those, the ones that only filter what a pipe gives them when no file is named (`| head -20`, `| grep x`). */
const FILTERS = new Set(['head', 'tail', 'less', 'more', 'grep', 'egrep', 'fgrep', 'sed', 'awk', 'jq', 'nl', 'wc', 'sort', 'uniq', 'cut', 'tr', 'column', 'fold']);

/**
 * Whether a command shows a file's or a repository's text (`cat x`, `grep -r x`, `git diff`), as
 * against running a program (`mytool 2>&1 | head -20`): a filter with no file named only shapes
 * the output before it.
 */
export function showsFiles(command: string): boolean {
  return programs(command).some((ws) => {
    const name = strip(base(ws[0] ?? '')).toLowerCase();
    if (!SHOWS_FILES.has(name)) return false;
    if (!FILTERS.has(name)) return true;
    const args = ws.slice(1).filter((a) => !a.startsWith('-'));
    // grep's and sed's first word is their pattern or script; the others name files.
    const files = name === 'grep' || name === 'egrep' || name === 'fgrep' || name === 'sed' || name === 'awk' || name === 'jq' ? args.slice(1) : args;
    return files.some((a) => /[/.~\w]/.test(a) && !/^\d+$/.test(a)) || (name.endsWith('grep') && ws.some((a) => /^-[a-zA-Z]*[rR]/.test(a)));
  });
}

/** `2>&1`, `>/dev/null`, `> out.txt`, `<<EOF`: the shell's words, not the program's (a `git log … 2>&1` is still a log of HEAD). */
const REDIRECT = /^(?:\d+|&)?(?:>>?|<<?<?)(.*)$/;

function withoutRedirects(ws: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ws.length; i += 1) {
    const m = REDIRECT.exec(ws[i] as string);
    if (m === null) out.push(ws[i] as string);
    else if (m[1] === '') i += 1; // a bare operator: its target is the next word
  }
  return out;
}

/**
 * A word as the shell reads it, when the command holds it so; else a note. The shell joins the
 * parts of a word (`"/tmp/ghp_Qzdd""PnxN…"`, `/tmp/ghp_Qzdd\PnxN…`), and the command was redacted
 * as written: the parts of a token are no token, and the word joined would be one again.
 */
function asWritten(command: string, word: string): string {
  return command.includes(word) ? word : '(a name the command writes in quoted or escaped parts)';
}

/**
 * What a command destroys that the transcript cannot give back, in a few words, or null: files
 * removed recursively, work discarded from the tree or the index, history rewritten on a remote,
 * branches, stashes and caches deleted. A successor must know what is gone before it acts.
 */
export function destroys(command: string): string | null {
  if (!/\b(?:rm|git|uv|npm|pnpm|yarn|docker)\b/.test(command)) return null;
  for (const w of programs(command)) {
    const p = strip(base(w[0] ?? ''));
    const a = w.slice(1);
    const flags = a.filter((x) => x.startsWith('-')).join(' ');
    if (p === 'rm' && /(?:^|\s)-(?:[a-zA-Z]*[rR][a-zA-Z]*|-recursive)\b/.test(flags)) return `removed ${a.filter((x) => !x.startsWith('-')).slice(0, 4).map((x) => asWritten(command, x)).join(' ') || 'files'} recursively`;
    if (p === 'git') {
      const sub = a.find((x) => !x.startsWith('-'));
      if (sub === 'reset' && a.includes('--hard')) return 'discarded uncommitted changes (git reset --hard)';
      if (sub === 'clean' && /(?:^|\s)-[a-zA-Z]*f/.test(flags)) return 'deleted untracked files (git clean)';
      if (sub === 'checkout' && a.includes('--') && a.indexOf('--') < a.length - 1) return 'discarded changes to files (git checkout --)';
      if (sub === 'restore' && !a.includes('--staged')) return 'discarded changes to files (git restore)';
      if (sub === 'push' && (a.includes('--force') || a.includes('-f') || a.some((x) => x.startsWith('--force-with-lease') || (x.startsWith('+') && x.length > 1)))) return 'rewrote a remote branch (git push --force)';
      if (sub === 'branch' && (a.includes('-D') || (a.includes('-d') && a.includes('--force')))) return 'deleted a branch (git branch -D)';
      if (sub === 'stash' && (a.includes('drop') || a.includes('clear'))) return 'deleted stashed changes (git stash drop/clear)';
    }
    if ((p === 'uv' || p === 'npm' || p === 'pnpm' || p === 'yarn') && a.includes('cache') && a.some((x) => x === 'clean' || x === 'prune' || x === 'clear')) return `cleared the ${p} cache`;
    if (p === 'docker' && a.includes('prune')) return 'pruned Docker data';
  }
  return null;
}

/**
 * The names a `pkill` or `killall` kills by (the last word that is no option or redirection):
 * every process that matches dies, the user's own shells and servers too, not only the session's.
 */
export function killedByName(command: string): { tool: string; name: string }[] {
  if (!/\b(?:pkill|killall)\b/.test(command)) return [];
  const out: { tool: string; name: string }[] = [];
  for (const w of programs(command)) {
    const p = strip(base(w[0] ?? ''));
    if (p !== 'pkill' && p !== 'killall') continue;
    // Redirections (`2>/dev/null`) are the shell's, not pkill's words.
    const names = w.slice(1).filter((x) => !x.startsWith('-') && !/^[0-9&]*[<>]/.test(x));
    const name = names[names.length - 1];
    if (name !== undefined && name.length > 0) out.push({ tool: p, name: asWritten(command, name) });
  }
  return out;
}

const SEARCHES = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'findstr']);

const isSearch = (w: readonly string[] | undefined): boolean => {
  if (w === undefined || w.length === 0) return false;
  const name = base(w[0] as string).toLowerCase().replace(/\.exe$/, '');
  return SEARCHES.has(name) || (name === 'git' && w[1] === 'grep');
};

/**
 * Exit 1 from a search (grep, rg, …) says it found no line, not that it failed (an error is 2).
 * Only where the search is what the exit code is from: the last stage of one pipeline, with no
 * `&&`, `||`, `;` or second line before it whose own failure could have given the 1. Or, given
 * the output, a search that opens an `&&` chain alone and a run that printed nothing at all: the
 * chain stopped where the search found nothing (FundWise's `grep -E "packageManager" package.json
 * && echo "---" && ls …`: had the grep matched, its line and the echo would have printed).
 */
export function exitMeansNoMatch(command: string, exitCode: number | undefined, output?: string): boolean {
  if (exitCode !== 1) return false;
  if (!/&&|\|\||;|\n/.test(command)) return isSearch(programs(command).at(-1));
  if (output === undefined || /\|\||;|\n/.test(command)) return false;
  const first = command.slice(0, command.indexOf('&&'));
  if (first.includes('|') || !isSearch(programs(first)[0])) return false;
  return output.replace(/^(?:Exit code \d+|Process exited with code \d+)\s*$/gm, '').trim() === '';
}

const runsGit = (command: string, test: (w: readonly string[]) => boolean): boolean => programs(command).some((w) => w[0] === 'git' && test(w));

export function isGitPush(command: string): boolean {
  return runsGit(command, (w) => w.includes('push'));
}

export function isGitRebase(command: string): boolean {
  return runsGit(command, (w) => w[1] === 'rebase' || (w[1] === 'pull' && w.some((a) => a === '--rebase' || a === '-r')));
}

/**
 * The remotes a `git remote -v` run printed (`origin\thttps://… (fetch)`), each once; an empty list
 * when the command was that run alone and printed none; null when the command holds no such run.
 */
export function gitRemotes(command: string, out: string): { name: string; url: string }[] | null {
  if (!command.includes('remote')) return null;
  const ps = programs(command);
  if (!ps.some((w) => w[0] === 'git' && w[1] === 'remote' && (w.includes('-v') || w.includes('--verbose')))) return null;
  const remotes: { name: string; url: string }[] = [];
  for (const m of out.matchAll(/^(\S+)\t(\S+) \((?:fetch|push)\)$/gm)) {
    const name = m[1] as string;
    if (!remotes.some((r) => r.name === name)) remotes.push({ name, url: m[2] as string });
  }
  if (remotes.length > 0) return remotes;
  return ps.length === 1 && out.trim().length === 0 ? [] : null;
}

/** How many remote-tracking branches (`remotes/origin/main`) a `git branch -a` run listed; null when the command holds no such run. */
export function remoteBranchCount(command: string, out: string): number | null {
  if (!command.includes('branch') || !runsGit(command, (w) => w[1] === 'branch' && (w.includes('-a') || w.includes('--all')))) return null;
  return out.match(/^[*+ ] ?remotes\//gm)?.length ?? 0;
}

/**
 * The branch a `git checkout` or `git switch` run moved to, from git's own words ("Switched to a new
 * branch 'x'", "Switched to branch 'x'"): the last such line; null when the command holds no such run.
 */
export function branchSwitch(command: string, out: string): string | null {
  if (!runsGit(command, (w) => w[1] === 'checkout' || w[1] === 'switch')) return null;
  let branch: string | null = null;
  for (const m of out.matchAll(/^Switched to (?:a new )?branch '([^'\n]{1,200})'$/gm)) branch = m[1] as string;
  return branch;
}

/**
 * A `git log` of every branch (`--all`, `--branches`) that listed commits, whole: not filtered by
 * author, message, date or path, nor piped through a filter (`| grep -v x`), nor run elsewhere.
 */
export function gitLogAll(command: string, out: string): boolean {
  if (!command.includes('log') || FILTERED_OUTPUT.test(command) || changesFolder(command)) return false;
  return runsGit(command, (w) => w[1] === 'log' && w.some((a) => a === '--all' || a.startsWith('--branches')) && !filtersCommits(w.slice(2))) && logLines(out).length > 0;
}

/** The newest commit a `git log` run printed first (`ecd5389 feat: backend v0`); null when the command holds no such run. */
export function gitLogTop(command: string, out: string): { hash: string; subject: string } | null {
  if (!command.includes('log') || FILTERED_OUTPUT.test(command) || !runsGit(command, (w) => w[1] === 'log' && logOfHead(w.slice(2)))) return null;
  // git's own format (`git log -1 --stat`): `commit <hash>`, its headers, then the subject indented
  // (deep-manifest at 72, read as no log, so an older one at 27 was called the latest).
  const full = /^commit ([0-9a-f]{7,40})\b[^\n]*\n(?:[A-Z][\w-]*:[^\n]*\n)*\n {4}([^\n]+)/.exec(out.replace(/^\s+/, ''));
  if (full !== null) return { hash: full[1] as string, subject: (full[2] as string).trim() };
  const first = logLines(out)[0];
  return first === undefined ? null : { hash: first.hash, subject: first.rest };
}

/** A log's output piped through what drops or reorders its lines (`| grep -v`, `| tail -1`, `| sort`). */
const FILTERED_OUTPUT = /\|\s*(?:grep|egrep|rg|awk|sed|sort|tac|tail|uniq|cut|jq)\b/;

/**
 * Options that leave commits out (`--author`, `--grep`, `-S`, `--until`, `--no-merges`, a path
 * after `--`): the log's first line need not be HEAD, nor its lines every commit.
 */
function filtersCommits(args: readonly string[]): boolean {
  const sep = args.indexOf('--');
  if (sep !== -1 && args.length > sep + 1) return true;
  return args.some((a) => /^--(?:author|committer|grep|invert-grep|all-match|until|before|skip|merges|no-merges|min-parents|max-parents|diff-filter|follow|ancestry-path|first-parent|cherry-pick|left-only|right-only|simplify-by-decoration)\b|^-[SG]/.test(a));
}

/**
 * A `git log` whose first line is HEAD's commit: not `--reverse` (its first is the oldest), not
 * one of other refs (`--all`, `main`, `origin/main`, `a..b`), not filtered (`--author`, `--grep`,
 * `--until`, a path); only its options.
 */
function logOfHead(args: readonly string[]): boolean {
  if (filtersCommits(args)) return false;
  const sep = args.indexOf('--');
  const before = sep === -1 ? args : args.slice(0, sep);
  if (before.some((a) => a === '--reverse' || a === '--all' || a.startsWith('--branches') || a.startsWith('--remotes') || a.startsWith('--tags') || a === '--glob')) return false;
  // `-n 5`, `--format x`: an option's separate value is not a ref.
  const valued = new Set(['-n', '--max-count', '--format', '--pretty', '--since', '--after']);
  return before.every((a, i) => a.startsWith('-') || valued.has(before[i - 1] ?? '') || /^HEAD$|^-?\d+$/.test(a));
}

const HEAD_MOVERS = new Set(['commit', 'merge', 'pull', 'rebase', 'reset', 'checkout', 'switch', 'cherry-pick', 'revert', 'am']);

/** The git subcommands of a command that can move HEAD to another commit (commit, merge, pull, rebase, reset, checkout, …), in order. */
export function headMovers(command: string): string[] {
  if (!command.includes('git')) return [];
  return programs(command)
    .filter((w) => w[0] === 'git' && HEAD_MOVERS.has(w[1] ?? ''))
    .map((w) => w[1] as string);
}

export function isGitMergeOrPull(command: string): boolean {
  return runsGit(command, (w) => w[1] === 'merge' || w[1] === 'pull');
}

/**
 * Whether a command names a file among its arguments (`ruff check src/a.py`, `pytest
 * tests/test_a.py::test_x`, `--file=src/a.py`), with the folders it gives those of the file's path
 * (`users/tests.py` is not `orders/tests.py`); one it excludes (`--exclude src/legacy.py`) it does not check.
 */
export function namesFileArg(command: string, path: string): boolean {
  const full = path.replace(/\\/g, '/');
  for (const seg of segments(command)) {
    const ws = words(seg);
    for (let i = 1; i < ws.length; i += 1) {
      const w = ws[i] as string;
      if (/^--(?:exclude|ignore|extend-exclude)(?:=|$)/.test(w) || /^--(?:exclude|ignore|extend-exclude)$/.test(ws[i - 1] ?? '')) continue;
      const arg = (w.includes('=') ? w.slice(w.indexOf('=') + 1) : w).split('::')[0]?.replace(/\\/g, '/').replace(/^\.\//, '') ?? '';
      if (arg.length > 0 && !arg.endsWith('/') && (full === arg || full.endsWith(`/${arg}`))) return true;
    }
  }
  return false;
}

/** A word of a git command that names a revision (`HEAD~1`, `origin/main`, a hash), not a path. */
function isRevision(a: string): boolean {
  return /^(?:HEAD|@)(?:[~^]\d*)*$/.test(a) || /[~^]\d*$/.test(a) || /^[0-9a-f]{7,40}$/.test(a) || /^(?:origin|upstream)\//.test(a);
}

/**
 * A git command that may bring another's commits or drop the session's own: a pull, a merge, a
 * reset to another revision (`git reset --hard origin/main`; not `git reset src/a.ts`, which unstages).
 */
export function rewritesHead(command: string): boolean {
  return runsGit(command, (w) => {
    if (w[1] === 'merge' || w[1] === 'pull') return true;
    if (w[1] !== 'reset') return false;
    const args = w.slice(2);
    const dash = args.indexOf('--');
    return (dash === -1 ? args : args.slice(0, dash)).some((a) => !a.startsWith('-') && isRevision(a) && a !== 'HEAD' && a !== '@');
  });
}

export function isGitCommit(command: string): boolean {
  return runsGit(command, (w) => w.includes('commit'));
}

/**
 * The pull request of the current branch, from `gh pr view` (no number: the branch's own) or
 * `gh pr create`: its address, and its state when the output gives it. Null otherwise.
 */
export function branchPullRequest(command: string, out: string): { url: string; state?: string } | null {
  if (!command.includes('gh') || !command.includes('pr')) return null;
  const ps = programs(command).filter((w) => w[0] === 'gh' && w[1] === 'pr' && (w[2] === 'create' || (w[2] === 'view' && !w.slice(3).some((a) => !a.startsWith('-') && /^(?:\d+|https?:\/\/\S+)$/.test(a)))));
  if (ps.length === 0) return null;
  const url = /https:\/\/[^\s"'<>]+\/pull\/\d+/.exec(out)?.[0];
  if (url === undefined) return null;
  const state = /"state"\s*:\s*"(\w+)"|^state:\s*(\w+)/m.exec(out);
  const s = state?.[1] ?? state?.[2];
  return s === undefined ? { url } : { url, state: s.toUpperCase() };
}

export function pullRequestHint(output: string): string | null {
  const m = /(https?:\/\/\S+\/(?:pull\/new|merge_requests\/new)\S*)/.exec(output);
  return m?.[1] ?? null;
}

const NOT_A_FILE = /^(\/dev\/(null|stdout|stderr|tty)|&\d|-)$/;
/** A redirect target that is plainly a path: no quotes, expansions or operators left in it. */
const PLAIN_PATH = /^[\w.~\/@+-][\w.~\/@+,:=-]*$/;

/**
 * The words an `echo` writes, when they are short and literal (no variable, substitution or
 * escape to expand): `echo "[]" > data/raw/issues.json` writes `[]` (posthog at 457, where the
 * file looked fetched). `ws`: the command's words, its redirects left out. Null for any other command.
 */
function literalEcho(seg: string, ws: readonly string[]): string | null {
  // A `>` inside quotes is text the redirect-stripping would cut (`echo "a > b" > f`).
  if (ws[0] !== 'echo' || /[$`\\*?]/.test(seg) || /(["'])[^"']*>[^"']*\1/.test(seg)) return null;
  const args = ws.slice(1);
  if (args.some((a) => /^-[a-zA-Z]+$/.test(a))) return null;
  const text = args.join(' ');
  return text.length <= 60 ? text : null;
}

function redirects(seg: string): ShellWrite[] {
  const out: ShellWrite[] = [];
  // Every redirect has a `>`: most commands have none, and need no masking.
  if (!seg.includes('>')) return out;
  // Outside quotes only: a `>` inside an echo'd string is text, not a redirect.
  let masked = '';
  let quote: string | null = null;
  for (let i = 0; i < seg.length; i += 1) {
    const c = seg[i] as string;
    if (quote !== null) {
      if (c === '\\' && quote === '"' && i + 1 < seg.length) {
        masked += '  ';
        i += 1;
        continue;
      }
      masked += c === quote ? c : ' ';
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    masked += c;
  }
  // Heredoc bodies are not part of the command line.
  const re = /(^|[^0-9&<>-])(&?>>?|[1]>>?)\s*("[^"]*"|'[^']*'|[^\s;&|<>]+)/g;
  for (const m of masked.matchAll(re)) {
    const idx = (m.index ?? 0) + (m[1]?.length ?? 0) + (m[2]?.length ?? 0);
    const raw = seg.slice(idx).trimStart();
    const target = words(raw)[0] ?? '';
    if (!PLAIN_PATH.test(target) || NOT_A_FILE.test(target)) continue;
    out.push({ path: target, how: m[2]?.includes('>>') === true ? 'append' : 'write' });
  }
  return out;
}

/** Commands that change the shell's folder (PowerShell's `Set-Location` and its alias `sl` too). */
const CHDIR = new Set(['cd', 'chdir', 'pushd', 'set-location', 'sl']);
/** Not rooted, not a drive, not expanded by the shell. */
const RELATIVE = /^(?![\\/~$%]|[A-Za-z]:)/;

/**
 * A formatter run that rewrites files in place (`ruff format`, `black`, `isort`): not a check
 * (its `--check`/`--diff` form is), and what it wrote is read from its output (ledger.ts).
 * Formatters that print nothing of what they changed (`cargo fmt`, `gofmt -w`) are not named.
 */
export function rewritingFormatter(command: string): boolean {
  // Asked of every command's result: most name no formatter, and are not parsed.
  if (!/\b(?:ruff|black|isort)\b/.test(command)) return false;
  return segments(command).some((seg) => {
    const ws = program(words(seg));
    const cmd = strip(base(ws[0] ?? ''));
    if (ws.some((a) => a === '--check' || a === '--diff' || a === '-c' || a === '--check-only')) return false;
    return (cmd === 'ruff' && ws[1] === 'format') || cmd === 'black' || cmd === 'isort';
  });
}

/**
 * The format checks a formatter run answers by rewriting the files in place: `cargo fmt` answers
 * `cargo fmt --check`, `prettier --write x` answers `prettier --check x`, `black .` answers
 * `black --check .` (edgerunner at 698: `cargo fmt --all -- --check` failed on a diff, and the run
 * at 701 began with `cargo fmt --all`; the failure stayed open). Each is a check's `tool` and the
 * paths it formatted (none for the whole project).
 */
export function formattedFor(command: string): { tool: string; paths: string[] }[] {
  if (!/\b(?:fmt|black|prettier|gofmt|ruff|isort)\b/.test(command)) return [];
  const out: { tool: string; paths: string[] }[] = [];
  for (const ws of programs(command)) {
    const tool = strip(base(ws[0] ?? ''));
    const args = ws.slice(1);
    const checking = args.some((a) => a === '--check' || a === '-c' || a === '--diff' || a === '-l' || a === '--list-different' || a === '--check-only');
    if (checking) continue;
    const p = args.filter(isPathArg).map(base).filter((x) => x !== '.');
    if (tool === 'cargo' && args.find((a) => !a.startsWith('-') && !a.startsWith('+')) === 'fmt') out.push({ tool: 'cargo fmt --check', paths: [] });
    // `ruff format`'s subcommand is no path: what follows it is.
    else if (tool === 'ruff' && args[0] === 'format') out.push({ tool: 'ruff format --check', paths: p });
    else if (tool === 'black' || tool === 'isort') out.push({ tool: `${tool} --check`, paths: p });
    else if ((tool === 'prettier' && (args.includes('--write') || args.includes('-w'))) || (tool === 'gofmt' && args.includes('-w'))) out.push({ tool: `${tool} --check`, paths: p });
  }
  return out;
}

/** Files a formatter's own output names as rewritten: black's `reformatted x`, isort's `Fixing x`. */
export function reformattedNamed(out: string): string[] {
  return [...new Set([...out.matchAll(/^\s*(?:reformatted|Fixing) (\S.*?)\s*$/gm)].map((m) => m[1] as string))];
}

/** How many files a formatter says it rewrote (`6 files reformatted, 10 files left unchanged`). */
export function reformattedCount(out: string): number {
  const m = /(\d+) files? reformatted/.exec(out);
  return m ? Number(m[1]) : 0;
}

/**
 * Files a format check lists as needing it (`Would reformat: x`, black's `would reformat x`), each
 * once; also inside the job log of a CI run (`act`: `[CI/test]   | Would reformat: x`).
 */
export function wouldReformat(out: string): string[] {
  if (!/would reformat/i.test(out)) return [];
  return [...new Set([...out.matchAll(/^(?:\[[^\]\n]{1,80}\][ \t]*)?[ \t|]*would reformat:? (\S.*?)[ \t]*$/gim)].map((m) => m[1] as string))];
}

/** A `git status` entry: short form (`XY path`, `R  old -> new`), and long form (`\tmodified:   path`). */
const STATUS_SHORT = /^([ MADRCU?!])([ MADRCU?!]) (?:.+ -> )?(.+)$/gm;
const STATUS_LONG = /^\t(?:modified|new file|deleted|typechange|renamed|copied):\s+(?:.+ -> )?(.+)$/gm;
const unquote = (p: string): string => p.trim().replace(/^"(.*)"$/, '$1');

/**
 * The command runs `git status`, or a `git diff` of the work tree or the index (with only the
 * options in `listing`, or `--cached`, `--staged`): what it shows is uncommitted. A diff that
 * names a revision (`HEAD~1`, `main..x`, a hash, a word that is not plainly a path) is not.
 */
export function diffsTheTree(command: string, listing: readonly string[]): boolean {
  let tree = false;
  for (const ws of programs(command)) {
    if (strip(base(ws[0] ?? '')) !== 'git') continue;
    const args = ws.slice(1);
    const at = args.findIndex((a) => !a.startsWith('-'));
    if (args[at] === 'status') {
      tree = true;
      continue;
    }
    if (args[at] !== 'diff') continue;
    const rest = args.slice(at + 1);
    const sep = rest.indexOf('--');
    const named = (sep === -1 ? rest : rest.slice(0, sep)).filter((a) => !a.startsWith('-'));
    const options = rest.filter((a, i) => a.startsWith('--') && (sep === -1 || i < sep) && a !== '--');
    if (options.some((o) => o !== '--cached' && o !== '--staged' && o !== '--no-color' && o !== '--no-ext-diff' && !listing.includes(o))) continue;
    if (named.every((a) => /[/.]/.test(a) && !/\.\.|[~^@:]|^HEAD$|^[0-9a-f]{7,40}$/.test(a))) tree = true;
  }
  return tree;
}

/**
 * The files a `git diff` of the work tree (a patch, not a listing) showed changed: `diff --git
 * a/x b/x`. Only a diff against the index or HEAD's tree says what is uncommitted: one that names a
 * revision (`HEAD~1`, `main..x`, a hash, a word that is not plainly a path) is not read.
 */
export function diffedPaths(command: string, out: string): string[] | null {
  if (!command.includes('git') || !out.includes('diff --git ') || !diffsTheTree(command, [])) return null;
  const paths: string[] = [];
  // git quotes a path with spaces or special characters whole: `diff --git "a/b c.py" "b/b c.py"`.
  for (const m of out.matchAll(/^diff --git (?:"a\/.+?" "b\/(.+)"|a\/.+? b\/(.+))$/gm)) {
    const p = (m[1] ?? m[2] ?? '').replace(/\\(["\\])/g, '$1');
    if (!paths.includes(p)) paths.push(p);
  }
  return paths;
}

/**
 * What a `git status` (long or short form) or `git diff --name-only`/`--name-status` run listed as
 * changed or untracked, as printed, and of a status the files it showed staged (the index column of
 * the short form, the "Changes to be committed" part of the long one; null when the output shows
 * neither form, or the run was a diff). Null when the command holds no such run.
 */
export function gitListing(command: string, out: string): { paths: string[]; staged: string[] | null; untracked?: string[]; added?: string[]; limited?: true } | null {
  // Asked of every command's result: one that never names git is not parsed.
  if (!command.includes('git')) return null;
  let kind: 'status' | 'names' | 'name-status' | null = null;
  let limited = false;
  for (const ws of programs(command)) {
    if (strip(base(ws[0] ?? '')) !== 'git') continue;
    const at = ws.findIndex((a, i) => i > 0 && !a.startsWith('-'));
    const sub = ws[at];
    const listing = sub === 'status' ? 'status' : sub === 'diff' && ws.includes('--name-only') ? 'names' : sub === 'diff' && ws.includes('--name-status') ? 'name-status' : null;
    if (listing === null) continue;
    kind = listing;
    // Paths after the subcommand (a status's words, a diff's after `--`) limit what it lists.
    const rest = ws.slice(at + 1);
    const dash = rest.indexOf('--');
    limited = listing === 'status' ? rest.some((a) => !a.startsWith('-')) : dash !== -1 && dash < rest.length - 1;
  }
  if (kind === null) return null;
  const lim = limited ? { limited: true as const } : {};
  const paths: string[] = [];
  const add = (list: string[], p: string): void => {
    const t = unquote(p);
    if (t.length > 0 && !list.includes(t)) list.push(t);
  };
  if (kind === 'names') for (const l of out.split('\n')) if (/^[^\s(][^\t]*$/.test(l) && !/^(?:warning|fatal|error):/.test(l)) add(paths, l);
  if (kind === 'name-status') for (const m of out.matchAll(/^[MADRCTU]\d*\t(?:[^\t\n]+\t)?([^\t\n]+)$/gm)) add(paths, m[1] as string);
  if (kind !== 'status') return { paths, staged: null, ...lim };
  const staged: string[] = [];
  // Files git does not track (`??`, "Untracked files:"): never added, so in no commit at all.
  const untracked: string[] = [];
  // New files staged and never committed (the index column's `A`, the long form's "new file:"):
  // in the index, in no commit.
  const added: string[] = [];
  for (const m of out.matchAll(STATUS_LONG)) add(paths, m[1] as string);
  let short = false;
  for (const m of out.matchAll(STATUS_SHORT)) {
    short = true;
    add(paths, m[3] as string);
    if ('MADRC'.includes(m[1] as string) && m[1] !== ' ') add(staged, m[3] as string);
    if (m[1] === '?' && m[2] === '?') add(untracked, m[3] as string);
    if (m[1] === 'A') add(added, m[3] as string);
  }
  const notTracked = /^Untracked files:\n(?:\s+\(use .*\n)*((?:\t.+\n?)+)/m.exec(out);
  for (const l of notTracked?.[1]?.split('\n') ?? []) {
    if (!l.startsWith('\t')) continue;
    add(paths, l);
    add(untracked, l);
  }
  const toCommit = /^Changes to be committed:\n(?:\s+\(use .*\n)*((?:\t.+\n?)+)/m.exec(out);
  if (toCommit?.[1] !== undefined) {
    for (const m of toCommit[1].matchAll(STATUS_LONG)) add(staged, m[1] as string);
    for (const m of toCommit[1].matchAll(/^\tnew file:\s+(.+)$/gm)) add(added, m[1] as string);
  }
  const known = short || toCommit !== null || /^(?:Changes not staged for commit|Untracked files|nothing to commit)/m.test(out);
  return { paths, staged: known ? staged : null, ...(untracked.length > 0 ? { untracked } : {}), ...(added.length > 0 ? { added } : {}), ...lim };
}

/**
 * The folder a `git -C <dir> …` of the command ran in, as written (several `-C` join, each relative
 * to the one before), or null when no git of the command names one. Its listing's paths are
 * relative to that folder, not to the session's.
 */
export function gitDir(command: string): string | null {
  if (!command.includes('-C')) return null;
  for (const seg of segments(command)) {
    const ws = withoutRedirects(words(seg));
    const at = ws.findIndex((w) => strip(base(w)) === 'git');
    const dir = at === -1 ? null : gitOptions(ws, at + 1).dir;
    if (dir !== null) return dir;
  }
  return null;
}

/** A long listing's line: mode, links, owner, group, size, a date of three words, the name. */
const LS_LONG = /^[-dlcbps][-rwxsStT]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+\S+\s+\S+\s+\S+\s(.+)$/;

/**
 * What a command that only lists folders (`ls`, `ls -la a/ && ls b/`) shows: the folders it named
 * (`.` for none) and the names its output lists (a long listing's last field, or one name a line).
 * Null for any other command. The names are not told apart by folder: a caller asks whether a name
 * it knows the folder of is among them.
 */
export function lsListing(command: string, out: string): { folders: string[]; names: Set<string> } | null {
  if (!/\bls\b/.test(command)) return null;
  const folders: string[] = [];
  for (const ws of programs(command)) {
    if (ws.length === 0) continue;
    if (ws[0] !== 'ls') return null;
    const args = ws.slice(1).filter((a) => !a.startsWith('-'));
    if (args.some((a) => /[*?[]/.test(a))) return null;
    folders.push(...(args.length === 0 ? ['.'] : args));
  }
  if (folders.length === 0) return null;
  const names = new Set<string>();
  for (const line of out.split('\n')) {
    const long = LS_LONG.exec(line);
    const name = long !== null ? (long[1] as string).replace(/ -> .*$/, '') : /^[^\s:][^\s]*$/.test(line) && !/^total$/.test(line) ? line : null;
    if (name !== null && name !== '.' && name !== '..') names.add(name.replace(/[/*@=|]$/, ''));
  }
  return { folders: folders.slice(0, 8), names };
}

/**
 * The paths a `git status` shows modified: files git tracked before (short form ` M`, `M `, `MM`;
 * long form `modified:`). A file the session "created" that is among them existed already: the
 * create overwrote it. Empty when the command is no status.
 */
export function modifiedInStatus(command: string, out: string): string[] {
  if (gitListing(command, out) === null || !programs(command).some((ws) => strip(base(ws[0] ?? '')) === 'git' && ws.slice(1).find((a) => !a.startsWith('-')) === 'status')) return [];
  const paths = new Set<string>();
  for (const m of out.matchAll(/^\t(?:modified):\s+(.+)$/gm)) paths.add(unquote(m[1] as string));
  for (const m of out.matchAll(STATUS_SHORT)) {
    const [x, y] = [m[1] as string, m[2] as string];
    if ((x === 'M' || y === 'M') && ' M'.includes(x) && ' M'.includes(y)) paths.add(unquote(m[3] as string));
  }
  return [...paths];
}

/** Whether a command changes folder (`cd x && …`): what its git or its installer does may be another folder's. */
export function changesFolder(command: string): boolean {
  return /(?:^|[\s;&|(])cd\s/.test(command);
}

/** Installers that copy what they install: a tool or package installed this way does not follow later edits. */
const INSTALLER = /^(?:uv\s+tool\s+install|pipx\s+install|(?:uv\s+)?pip3?\s+install|python3?\s+-m\s+pip\s+install|cargo\s+install)\b/;
/** An install that follows the source, or a removal: the copy is no longer what runs. */
export const uncopies = (command: string): boolean => UNCOPIES.test(command);
const UNCOPIES = /\b(?:(?:uv\s+)?pip3?\s+install|pipx\s+install|uv\s+tool\s+install)\b[^;&|\n]*\s(?:-e|--editable)\b|\b(?:(?:uv\s+)?pip3?\s+uninstall|pipx\s+uninstall|uv\s+tool\s+uninstall|cargo\s+uninstall)\b/;

/**
 * A command that installs the project from its own folder as a copy: `uv tool install .`, `pipx
 * install .`, `pip install .` (`".[dev]"` too), `cargo install --path .`; not an editable install
 * (`-e`, `--editable`), which follows the source, nor `npm install -g .`, which links the folder
 * (coderabbit at 65: `uv tool install .`, then two edits of the script, and the installed command
 * still ran the code before them).
 */
export function copyInstall(command: string): boolean {
  // Of this folder's project: not after a `cd` elsewhere (`cd ../other && pip install .`).
  if (!command.includes('install') || changesFolder(command)) return false;
  return segments(command).some((seg) => {
    const t = seg.trim().replace(/^(?:sudo\s+)?/, '');
    if (!INSTALLER.test(t)) return false;
    const words = t.split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
    if (words.some((w) => w === '-e' || w === '--editable' || w.startsWith('--editable='))) return false;
    return words.some((w, i) => w === '.' || w === './' || w.startsWith('.[') || w.startsWith('./[') || (w === '--path' && i + 1 < words.length));
  });
}

/** The branch a `git init` names (`-b main`, `--initial-branch=main`), or null. */
export function initBranch(command: string): string | null {
  // program() has passed git's own options: the subcommand is the second word.
  const ws = programs(command).find((w) => strip(base(w[0] ?? '')) === 'git' && w[1] === 'init');
  if (ws === undefined) return null;
  for (let i = 2; i < ws.length; i += 1) {
    const w = ws[i] as string;
    if ((w === '-b' || w === '--initial-branch') && ws[i + 1] !== undefined) return ws[i + 1] as string;
    if (w.startsWith('--initial-branch=')) return w.slice('--initial-branch='.length);
  }
  return null;
}

/**
 * The branch of a repository with no commit yet, as git says so: `git log`'s "your current branch
 * 'x' does not have any commits yet", a long `git status`'s "No commits yet" under its branch, or
 * `git status -sb`'s "## No commits yet on x". Null when the output says none of these.
 */
export function noCommitsYet(out: string): string | null {
  if (!out.includes('o commits yet') && !out.includes('any commits yet')) return null;
  const m = /your current branch '([^'\n]{1,200})' does not have any commits yet/.exec(out) ?? /^On branch (\S{1,200})\n+No commits yet$/m.exec(out) ?? /^## No commits yet on (\S{1,200})$/m.exec(out);
  return m?.[1] ?? null;
}

/**
 * The branch a `git status` says the repository is on: the long format's "On branch x", the short
 * one's `## x...origin/x` or `## x`. Null for another command, a detached HEAD or no branch line.
 */
export function statusBranch(command: string, out: string): string | null {
  if (/\bgit\s+(?:-C\s+\S+\s+)?status\b/.test(command)) {
    const m = /^On branch (\S{1,200})$/m.exec(out) ?? /^## (?!No commits yet on |HEAD \(no branch\))([^\s.]+(?:\.(?!\.)[^\s.]+)*)(?:\.\.\.\S+)?(?: \[[^\]\n]*\])?$/m.exec(out);
    return m?.[1] ?? null;
  }
  // `git branch` (`-a`, `-v`) marks the one checked out with `* ` (a worktree's with `+ `).
  if (/\bgit\s+(?:-C\s+\S+\s+)?branch(?:\s+(?:-a|--all|-v|-vv|--list|-r))*\s*(?:$|[|;&>\n]|2>)/m.test(command)) {
    // Not a hash (`git log --graph` in the same command: `* 9f8e7d6 …`).
    const b = /^\* (?!\()(\S{1,200})(?:\s|$)/m.exec(out)?.[1];
    return b === undefined || /^[0-9a-f]{7,40}$/.test(b) ? null : b;
  }
  return null;
}

/** The files `gitListing` gives, alone. */
export function gitListedFiles(command: string, out: string): string[] | null {
  return gitListing(command, out)?.paths ?? null;
}

/** Of the files a `git status` listed, those staged (`gitListing`'s `staged`). */
export function gitStagedFiles(out: string): string[] | null {
  return gitListing('git status', out)?.staged ?? null;
}

/**
 * What a command's `git add` steps stage: every change (`-A`, `--all`, `.`, `:/`), the changes to
 * tracked files only (`-u`), or the paths named (as written, `./` dropped). Null when it runs no
 * `git add` (deep-manifest at 262: `git add a b c && git commit`, read as a commit of what an
 * earlier listing had shown staged, which left a, b and c "uncommitted").
 */
export function gitAdded(command: string): { all: boolean; tracked: boolean; paths: string[] } | null {
  if (!/\badd\b/.test(command)) return null;
  let out: { all: boolean; tracked: boolean; paths: string[] } | null = null;
  for (const ws of programs(command)) {
    // program() has passed git's own options: the subcommand is the second word.
    if (strip(base(ws[0] ?? '')) !== 'git' || ws[1] !== 'add') continue;
    out ??= { all: false, tracked: false, paths: [] };
    for (const a of ws.slice(2)) {
      if (a === '-A' || a === '--all' || a === '.' || a === ':/' || a === '*') out.all = true;
      else if (a === '-u' || a === '--update') out.tracked = true;
      else if (!a.startsWith('-')) out.paths.push(a.replace(/^\.\//, '').replace(/\\/g, '/'));
    }
  }
  return out;
}

/**
 * What a `git restore --staged …` or a `git reset [HEAD] [-- …]` (neither `--hard` nor `--soft`,
 * which move HEAD) took out of the index: every path (`.`, none named), or those named.
 */
export function gitUnstaged(command: string): { all: boolean; paths: string[] } | null {
  if (!/\b(?:restore|reset|stash)\b/.test(command)) return null;
  let out: { all: boolean; paths: string[] } | null = null;
  for (const ws of programs(command)) {
    if (strip(base(ws[0] ?? '')) !== 'git') continue;
    const args = ws.slice(2);
    // `git stash` (push, save) takes the staged changes away; `stash list`, `show`, `apply`, `pop` do not.
    if (ws[1] === 'stash') {
      if (args.length === 0 || args[0] === 'push' || args[0] === 'save' || (args[0] ?? '').startsWith('-')) (out ??= { all: false, paths: [] }).all = true;
      continue;
    }
    const unstages = (ws[1] === 'restore' && args.some((a) => a === '--staged' || a === '-S')) || (ws[1] === 'reset' && !args.includes('--soft'));
    if (!unstages) continue;
    out ??= { all: false, paths: [] };
    // After `--`, paths; before it, a revision (`HEAD~1`, `origin/main`, a hash) makes a reset of
    // the whole index (and, `--hard`, of the tree): nothing staged is left.
    const dash = args.indexOf('--');
    const before = (dash === -1 ? args : args.slice(0, dash)).filter((a) => !a.startsWith('-'));
    const after = dash === -1 ? [] : args.slice(dash + 1);
    const revs = ws[1] === 'reset' ? before.filter(isRevision) : [];
    const paths = [...before.filter((a) => !isRevision(a) && a !== 'HEAD'), ...after].map((a) => a.replace(/^\.\//, '').replace(/\\/g, '/'));
    const moves = revs.some((r) => r !== 'HEAD' && r !== '@');
    if (paths.length === 0 || paths.some((p) => p === '.' || p === ':/') || (moves && after.length === 0) || args.includes('--hard')) out.all = true;
    else out.paths.push(...paths);
  }
  return out;
}

/**
 * A `git commit` that commits what is staged and nothing else: no `-a`/`--all`, no paths. After
 * one, the files a listing showed unstaged or untracked are still uncommitted.
 */
export function commitsStagedOnly(command: string): boolean {
  let seen = false;
  for (const ws of programs(command)) {
    if (strip(base(ws[0] ?? '')) !== 'git' || ws[1] !== 'commit') continue;
    seen = true;
    for (let i = 2; i < ws.length; i += 1) {
      const a = ws[i] as string;
      if (a === '--all' || a === '--include' || a === '--only' || a === '--' || /^-[A-Za-z]*a[A-Za-z]*$/.test(a) && !a.startsWith('--')) return false;
      if (a === '-m' || a === '-F' || a === '-C' || a === '-c' || a === '--message' || a === '--file' || a === '--author' || a === '--date' || a === '--fixup' || a === '--squash' || a === '--cleanup' || a === '-t' || a === '--template') {
        i += 1;
        continue;
      }
      if (/^-[A-Za-z]*[mFCct]$/.test(a)) {
        i += 1; // a short flag run ending in one that takes a value (`-sm msg`)
        continue;
      }
      if (!a.startsWith('-')) return false; // a path
    }
  }
  return seen;
}

/** Files a command copies from (`cp a b`: a): a copy that succeeded proves they were there. */
export function copySources(command: string): string[] {
  if (!/\b(?:cp|install)\b/.test(command)) return [];
  const out: string[] = [];
  for (const seg of segments(command)) {
    const ws = program(words(seg.replace(/\s[0-9&]?>>?\s*\S+/g, ' ')));
    const cmd = strip(ws[0] ?? '');
    const args = ws.slice(1).filter((a) => !a.startsWith('-'));
    if ((cmd === 'cp' || cmd === 'install') && args.length >= 2) for (const a of args.slice(0, -1)) if (!a.includes('*')) out.push(a);
  }
  return out;
}

/**
 * Files a one-liner writes by a literal name: Python's `open('p', 'w'|'a'|'x')` and
 * `Path('p').write_text(`, Node's `writeFileSync('p'` and `appendFileSync('p'`. Each pattern
 * names the file `path`, and `mode` (`a` or `append`) when it may append.
 */
const INLINE_WRITES: readonly RegExp[] = [
  /\bopen\(\s*(['"])(?<path>[^'"\n]{1,300})\1\s*,\s*(?:mode\s*=\s*)?(['"])(?<mode>[wax])b?\+?\3/g,
  /\bPath\(\s*(['"])(?<path>[^'"\n]{1,300})\1\s*\)\s*\.write_(?:text|bytes)\(/g,
  /\b(?<mode>write|append)FileSync\(\s*(['"])(?<path>[^'"\n]{1,300})\2/g,
];

function inlineWrites(code: string): ShellWrite[] {
  return INLINE_WRITES.flatMap((re) => [...code.matchAll(re)].map((m) => ({ path: m.groups?.path as string, how: m.groups?.mode === 'a' || m.groups?.mode === 'append' ? ('append' as const) : ('write' as const) })));
}

/** Files a command plainly writes: redirects, tee, cp, mv, rm, git rm/mv, sed -i, PowerShell's *-Item/Set-Content, a Python or Node one-liner's named file. */
export function shellWrites(command: string): ShellWrite[] {
  const out: ShellWrite[] = [];
  // A `cd` earlier in the command moves what its later relative paths name: `cd web && echo x >
  // a.txt` writes web/a.txt. The folder is kept as written; the ledger joins it to the session's.
  let dir: string | undefined;
  const dirs: (string | undefined)[] = [];
  const under = (p: string): string => (dir === undefined || !RELATIVE.test(p) ? p : `${dir}/${p}`);
  const add = (w: ShellWrite): void => {
    const path = under(w.path);
    if (w.path.length > 0 && !w.path.includes('*') && !NOT_A_FILE.test(w.path) && !out.some((o) => o.path === path && o.how === w.how)) out.push({ ...w, path });
  };
  // A heredoc body is data: cut it off before reading the command.
  const body = command.replace(/<<-?\s*['"]?(\w+)['"]?[^\n]*\n[\s\S]*?\n\s*\1\s*(\n|$)/g, (m) => m.slice(0, m.indexOf('\n') + 1));
  for (const seg of segments(body)) {
    const ws = program(words(seg.replace(/\s[0-9&]?>>?\s*\S+/g, ' ')));
    const echoed = literalEcho(seg, ws);
    for (const r of redirects(seg)) add(echoed === null || r.how === 'delete' ? r : { ...r, text: echoed });
    const cmd = strip(ws[0] ?? '');
    const args = ws.slice(1).filter((a) => !a.startsWith('-'));
    const chdir = cmd.toLowerCase();
    if (CHDIR.has(chdir)) {
      // `cd` alone goes home, `cd -` back to where it was: folders named by the shell, not the command.
      const to = ws[1] === '-' ? '$OLDPWD' : (args.find((a) => !/^\/d$/i.test(a)) ?? '~');
      if (chdir === 'pushd') dirs.push(dir);
      dir = under(to);
      continue;
    }
    if (chdir === 'popd') {
      dir = dirs.pop();
      continue;
    }
    switch (cmd) {
      case 'tee':
        for (const a of args) add({ path: a, how: ws.includes('-a') ? 'append' : 'write' });
        break;
      case 'cp':
      case 'install':
        if (args.length >= 2) add({ path: args[args.length - 1] as string, how: 'copy' });
        break;
      case 'mv':
        if (args.length >= 2) {
          for (const a of args.slice(0, -1)) add({ path: a, how: 'move' });
          add({ path: args[args.length - 1] as string, how: 'move' });
        }
        break;
      case 'rm': {
        const force = ws.some((a) => a === '--force' || /^-[a-zA-Z]*f/.test(a));
        for (const a of args) add(force ? { path: a, how: 'delete', ifExists: true } : { path: a, how: 'delete' });
        break;
      }
      case 'unlink':
        for (const a of args) add({ path: a, how: 'delete' });
        break;
      case 'git': {
        const sub = ws[1];
        const gargs = ws.slice(2).filter((a) => !a.startsWith('-'));
        // `git rm --cached` leaves the file on disk; a dry run (`-n`, `--dry-run`) changes nothing.
        const dry = ws.some((a) => a === '-n' || a === '--dry-run' || /^-[a-zA-Z]*n[a-zA-Z]*$/.test(a) && sub === 'mv');
        if (sub === 'rm' && !dry && !ws.includes('--cached')) for (const a of gargs) add({ path: a, how: 'delete' });
        if (sub === 'mv' && !dry && gargs.length >= 2) for (const a of gargs) add({ path: a, how: 'move' });
        break;
      }
      case 'npm':
      case 'pnpm':
      case 'yarn':
      case 'bun':
      case 'cargo':
      case 'uv':
      case 'poetry':
      case 'go':
        // Relative to a folder a `cd` moved to, the manifest may be in a folder above it (a workspace's member): only an absolute folder an option gives is placed.
        if (!/\bGO111MODULE=off\b/.test(seg)) for (const w of manifestWrites(cmd, ws, dir !== undefined)) add(w);
        break;
      case 'sed':
      case 'perl':
        if (ws.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) {
          const files = ws.slice(1).filter((a) => !a.startsWith('-'));
          // The first word that is not an option is the script (unless -e gave it).
          const scripts = ws.some((a) => a === '-e') ? 0 : 1;
          for (const f of files.slice(scripts)) if (isPathArg(f) || !f.includes(' ')) add({ path: f, how: 'edit' });
        }
        break;
      default: {
        const ps = cmd.toLowerCase();
        const named = (flag: string): string | undefined => {
          const i = ws.findIndex((a) => a.toLowerCase() === flag);
          return i === -1 ? undefined : ws[i + 1];
        };
        const positional = (): string[] => ws.slice(1).filter((a, i, all) => !a.startsWith('-') && !(all[i - 1] ?? '').startsWith('-'));
        // A Python or Node one-liner that opens a file for writing by a literal name
        // (`python3 -c "… open('data/raw/meta.json', 'w').write(…)"`, `node -e "fs.writeFileSync('x', …)"`).
        const inline = /^(?:python[\d.]*|py|node)$/.test(ps) ? named(ps === 'node' ? '-e' : '-c') ?? (ps === 'node' ? named('--eval') : undefined) : undefined;
        if (inline !== undefined) for (const w of inlineWrites(inline)) add(w);
        if (ps === 'set-content' || ps === 'add-content' || ps === 'out-file' || ps === 'new-item') {
          const p = named('-path') ?? named('-filepath') ?? positional()[0];
          if (p !== undefined) add({ path: p, how: ps === 'add-content' ? 'append' : 'write' });
        } else if (ps === 'copy-item' || ps === 'move-item') {
          const dest = named('-destination') ?? positional()[1];
          const src = named('-path') ?? positional()[0];
          if (dest !== undefined) add({ path: dest, how: ps === 'copy-item' ? 'copy' : 'move' });
          if (ps === 'move-item' && src !== undefined) add({ path: src, how: 'move' });
        } else if (ps === 'remove-item') {
          const p = named('-path') ?? positional()[0];
          if (p !== undefined) add({ path: p, how: 'delete' });
        }
      }
    }
  }
  return out;
}

/**
 * Subcommands that add or remove a dependency by name, per program, the lock file each writes beside
 * its manifest, and the options that name the folder it works in (`npm --prefix web i x`, `pnpm -C
 * web add x`, `yarn --cwd web add x`, `uv add --directory api x`, `cargo add --manifest-path
 * api/Cargo.toml x`, `go -C api get x`). Not bun's lock file: `bun.lock` or, before bun 1.2, `bun.lockb`.
 */
const DEPENDENCY_CHANGES: Record<string, { subs: ReadonlySet<string>; manifest: string; lock?: string; folder?: ReadonlySet<string> }> = {
  npm: { subs: new Set(['install', 'i', 'add', 'uninstall', 'un', 'remove', 'rm', 'r']), manifest: 'package.json', lock: 'package-lock.json', folder: new Set(['--prefix']) },
  pnpm: { subs: new Set(['add', 'install', 'i', 'remove', 'rm', 'uninstall', 'un']), manifest: 'package.json', lock: 'pnpm-lock.yaml', folder: new Set(['-C', '--dir']) },
  yarn: { subs: new Set(['add', 'remove']), manifest: 'package.json', lock: 'yarn.lock', folder: new Set(['--cwd']) },
  bun: { subs: new Set(['add', 'install', 'i', 'remove', 'rm']), manifest: 'package.json', folder: new Set(['--cwd']) },
  cargo: { subs: new Set(['add', 'remove', 'rm']), manifest: 'Cargo.toml', folder: new Set(['--manifest-path']) },
  uv: { subs: new Set(['add', 'remove']), manifest: 'pyproject.toml', lock: 'uv.lock', folder: new Set(['--directory', '--project']) },
  poetry: { subs: new Set(['add', 'remove']), manifest: 'pyproject.toml', lock: 'poetry.lock', folder: new Set(['-C', '--directory', '-P', '--project']) },
  go: { subs: new Set(['get']), manifest: 'go.mod', lock: 'go.sum', folder: new Set(['-C']) },
};
/** Options that send the change elsewhere (a global install, another package of a workspace, another folder, a script) or make none. */
const ELSEWHERE = /^(?:-g|--global|--location(?:=.*)?|--no-save|--save=false|--dry-run|-w|--workspace(?:=.*)?|--filter(?:=.*)?|-F|--prefix(?:=.*)?|-C|--dir(?:=.*)?|--cwd(?:=.*)?|--manifest-path(?:=.*)?|--package|-p|--project(?:=.*)?|--directory(?:=.*)?|--script(?:=.*)?|--frozen|--locked|--offline-only)$/;
/** Options whose value is the next word, not a dependency's name (`npm install --omit dev`). */
const VALUED = new Set(['--omit', '--include', '--loglevel', '--registry', '--cache', '--tag', '--userconfig', '--save-prefix', '--before', '--index-url', '--extra-index-url', '--features', '-F', '--rev', '--branch', '--git', '--path', '--group', '-G', '--optional']);
/** Options that leave the lock file as it is. */
const NO_LOCK = /^(?:--no-package-lock|--package-lock=false|--no-lockfile|--frozen-lockfile)$/;

/**
 * The manifest (and lock file) a command that adds or removes a dependency by name rewrites in the
 * folder it runs in, or the folder an option names: `npm install --save-dev playwright-core` and
 * `npm uninstall playwright-core` rewrite package.json and package-lock.json (edgerunner at 486 and
 * 528), `cargo add serde` Cargo.toml, `uv add httpx` pyproject.toml and uv.lock, `go get x@v1` go.mod
 * and go.sum, `npm --prefix web i zod` web/package.json. An install with no name (`npm install`,
 * `npm ci`) may leave them as they are; one sent elsewhere (`-g`, a workspace, a script) writes
 * another's; after a `cd` (`moved`), only an absolute folder an option names is known.
 */
function manifestWrites(cmd: string, all: readonly string[], moved: boolean): ShellWrite[] {
  const pm = DEPENDENCY_CHANGES[cmd];
  if (pm === undefined) return [];
  // The folder an option names, wherever it stands (`npm --prefix web install x`, `pnpm add x -C web`).
  let folder: string | undefined;
  const ws: string[] = [];
  for (let i = 0; i < all.length; i += 1) {
    const a = all[i] as string;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (i > 0 && pm.folder?.has(eq > 0 ? a.slice(0, eq) : a)) {
      const v = eq > 0 ? a.slice(eq + 1) : all[(i += 1)];
      if (v === undefined || v === '' || folder !== undefined) return [];
      folder = a.startsWith('--manifest-path') ? v.replace(/[/\\]?[^/\\]*$/, '') || '.' : v.replace(/[/\\]+$/, '');
      continue;
    }
    ws.push(a);
  }
  const sub = ws[1];
  if (sub === undefined || !pm.subs.has(sub)) return [];
  // After a `cd`, a folder relative to where the session was is not known.
  if (moved && !(folder !== undefined && /^(?:\/|[A-Za-z]:[/\\])/.test(folder))) return [];
  const rest = ws.slice(2);
  if (rest.some((a) => ELSEWHERE.test(a))) return [];
  // A dependency by name: a word that is no option (`-D`, `--save-dev`) and no option's value.
  if (!rest.some((a, i) => !a.startsWith('-') && a.length > 0 && !VALUED.has(rest[i - 1] ?? ''))) return [];
  const at = (file: string): string => (folder === undefined || folder === '.' ? file : `${folder}/${file}`);
  const lock = pm.lock === undefined || rest.some((a) => NO_LOCK.test(a)) ? [] : [{ path: at(pm.lock), how: 'edit' as const, manager: true as const }];
  return [{ path: at(pm.manifest), how: 'edit', manager: true }, ...lock];
}

/**
 * A package manager's own summary of dependencies it added or removed: npm's `added 2 packages,
 * and audited 49 packages in 2s` (and `removed`, `changed`), yarn's `success Saved 1 new
 * dependency.`, pnpm's `devDependencies:` then `+ name version`, cargo's `Adding serde v1.0.219 to
 * dependencies` (and `Removing … from`). A run whose exit code the transcript does not give (Codex
 * code mode's `Script completed`, edgerunner at 487) rewrote its manifest when it prints one; npm's
 * `up to date` changed nothing, and says nothing here.
 */
const DEPENDENCIES_CHANGED = /^(?:(?:added|removed|changed) \d+ packages?\b|success Saved \d+ new dependenc|(?:dev|optional|peer)?[dD]ependencies:\n[+-] \S|[ \t]*Adding \S+ v\d\S* to (?:dev-|build-)?dependencies\b|[ \t]*Removing \S+ from (?:dev-|build-)?dependencies\b)/m;

export function dependenciesChanged(output: string): boolean {
  return DEPENDENCIES_CHANGED.test(output);
}

/** The program a command's output was piped into last (`pnpm build 2>&1 | tail -60`: `tail`), unless `pipefail` is set; null when not piped. */
export function pipedInto(command: string): string | null {
  if (/\bpipefail\b/.test(command)) return null;
  const m = /(?:^|[^|])\|\s*(tail|head|grep|rg|tee|less|more|sort|uniq|wc|cat|sed|awk|cut|jq)\b[^|&;]*$/.exec(command.trim());
  return m?.[1] ?? null;
}

/** Programs that only read or print (a redirect aside): a command of these alone changes no file. */
const READ_ONLY = new Set(['cat', 'head', 'tail', 'less', 'more', 'ls', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'find', 'fd', 'wc', 'sort', 'uniq', 'cut', 'tr', 'awk', 'diff', 'cmp', 'file', 'stat', 'echo', 'printf', 'pwd', 'which', 'type', 'env', 'printenv', 'date', 'true', 'jq', 'yq', 'tree', 'du', 'df', 'ps', 'pgrep', 'source', '.', 'cd', 'test', '[', '[[', 'nl', 'column', 'realpath', 'dirname', 'basename']);
const GIT_READS = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'grep', 'remote', 'describe', 'shortlog']);
/** A one-liner that may write: a file opened to write, a removal, a process, a path's write method. */
const SCRIPT_WRITES = /\bopen\([^)]*,\s*\\?['"][wax+]|\.write(?:_text|_bytes|FileSync|File)?\(|\bos\.(?:remove|unlink|rename|replace|makedirs|mkdir|rmdir|system)\b|\bshutil\.|\bsubprocess\.|\bunlinkSync\b|\bexecSync\b|\bspawnSync\b|\bPath\([^)]*\)\.(?:unlink|rename|touch|mkdir)/;

/**
 * Whether a shell command changes no file: each of its programs only reads or prints (git's reading
 * subcommands, `sed` without `-i`, a `python -c` or `node -e` one-liner that opens nothing to write
 * and starts nothing), and no redirect writes a file other than /dev/null.
 */
export function readsOnly(command: string): boolean {
  if (/(?:^|[^<>&\d])>{1,2}\s*(?!\/dev\/null\b|&)/.test(command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, "''"))) return false;
  return programs(command).every((ws) => {
    const name = strip(base(ws[0] ?? ''));
    if (name === 'git') return GIT_READS.has(ws[1] ?? '');
    if (name === 'sed') return !ws.some((w) => /^-[a-zA-Z]*i/.test(w) || w.startsWith('--in-place'));
    if (/^(?:python[\d.]*|node)$/.test(name)) return (ws[1] === '-c' || ws[1] === '-e') && !SCRIPT_WRITES.test(ws[2] ?? '');
    return READ_ONLY.has(name);
  });
}

/** The program one simple command runs, by name, lower-cased: past env assignments and wrappers (`PGPASSWORD=x sudo psql …`: `psql`). */
export function programOf(segment: string): string {
  return strip(base(program(withoutRedirects(words(segment)))[0] ?? '')).toLowerCase();
}

/** Every program a command runs, by name, in order (`git`, `grep`, `test`). */
export function programNames(command: string): string[] {
  return programs(command).map((ws) => strip(base(ws[0] ?? ''))).filter((n) => n.length > 0);
}

/**
 * The programs a command runs, by name, leaving out those that only show or filter text (`cat`,
 * `tail`, `grep`, `echo`): `pnpm` for `/home/u/.nvm/…/bin/pnpm --version 2>&1 | head -5`.
 */
export function programsRun(command: string): string[] {
  const out: string[] = [];
  for (const ws of programs(command)) {
    const name = strip(base(ws[0] ?? ''));
    if (name.length > 0 && !SHOWS_FILES.has(name) && !PLUMBING.has(name) && !out.includes(name)) out.push(name);
  }
  return out;
}
