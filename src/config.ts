import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, parse as parsePath, resolve } from 'node:path';
import { cutBeforeRedaction } from './core/cut.js';
import { jsonErrorReason } from './core/ingest.js';
import { readRegularTextSync } from './store/files.js';
import type { ErrorObject } from 'ajv';
import type { PressureConfig } from './core/pressure.js';
import type { RedactionPattern } from './core/redact.js';
import { unsafePatternReason } from './core/pattern-safety.js';
import { ConfigError } from './errors.js';
import { CONFIG_SCHEMA_PATH } from './paths.js';
import { readSmallFileSync } from './store/files.js';

/**
 * Finds, reads, validates and freezes the configuration, and resolves where the store lives
 * (SPEC §2). A config file that exists but is invalid is an error naming the file, the JSON
 * pointer and the fix — never a silent fall-back to another store.
 */

export const CONFIG_FILE = 'handoff.config.json';
const WALK_LEVELS = 10;


export interface FileConfig {
  storage?: { path?: string };
  handoff_dir?: string;
  project_name?: string;
  linking: { enabled: boolean; min_overlap_score: number };
  capture: { max_line_bytes: number };
  watch: {
    paths?: string[];
    debounce_ms: number;
    backfill_days: number;
    rescan_interval_s: number;
    live_window_s: number;
    allow_bad_lines: boolean;
  };
  context: { thresholds: { yellow: number; orange: number; red: number }; default_limit: number; limits: Record<string, number> };
  redaction: { patterns: (string | { name?: string; pattern: string; flags?: string })[] };
  git: { enabled: boolean; timeout_ms: number };
  daemon: {
    log_level: string;
    index_interval_ms: number;
    shutdown_timeout_ms: number;
    finalize_on_red: boolean;
    cache_sessions: number;
    backfill_workers: number;
    request_timeout_ms: number;
    idle_timeout_ms: number;
    max_connections: number;
  };
  hooks: {
    on_start: 'offer' | 'never';
    on_compact: 'inject' | 'never';
    checkpoint_before_compact: boolean;
    token_budget: number;
    time_budget_ms: number;
    offer_max_age_h: number;
  };
}

export type RootSource = 'flag' | 'env' | 'config' | 'discover' | 'default';

export interface ResolvedConfig {
  readonly root: string;
  readonly source: RootSource;
  /** The config file that supplied the options, if any. */
  readonly file: string | null;
  readonly schema: string;
  readonly projectName: string | null;
  readonly options: Readonly<FileConfig>;
  readonly watchPaths: readonly string[];
  readonly watchPathsSource: 'flag' | 'config' | 'default';
  readonly socketPath: string;
  readonly runtimeDir: string;
  readonly redactionPatterns: readonly RedactionPattern[];
  readonly pressure: PressureConfig;
}

export interface ResolveInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--root DIR`: beats every rule. */
  rootFlag?: string | undefined;
  /** `--watch DIR` (daemon): replaces the watch paths. */
  watchFlags?: readonly string[] | undefined;
}

type Validator = ReturnType<import('ajv').Ajv['compile']>;

let schemaText: string | null = null;
let schemaCache: SchemaNode | null = null;
function configSchema(): SchemaNode {
  schemaText ??= readFileSync(CONFIG_SCHEMA_PATH, 'utf8');
  schemaCache ??= JSON.parse(schemaText) as SchemaNode;
  return schemaCache;
}

let validator: Validator | null = null;
/**
 * Loaded only when a config file has to be validated: importing ajv and compiling the schema
 * costs ~150 ms, which a hook run by the agent on every compaction and status-line refresh must
 * not pay when there is no file (ajv is CommonJS, so a synchronous require keeps this sync).
 */
function validate(): Validator {
  if (validator) return validator;
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  validator = new Ajv({ allErrors: true, useDefaults: true, strict: false, verbose: true }).compile(configSchema());
  return validator;
}

interface SchemaNode {
  default?: unknown;
  properties?: Record<string, SchemaNode>;
}

/**
 * Fills in the schema's defaults the way ajv's `useDefaults` does for a valid document: a missing
 * key with a default gets a copy of it, then objects are filled in depth. A unit test holds it
 * equal to ajv's result, so the schema stays the single source of every default.
 */
export function schemaDefaults(node: SchemaNode, into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (into[key] === undefined && child.default !== undefined) into[key] = structuredClone(child.default);
    const v = into[key];
    if (child.properties && v !== null && typeof v === 'object' && !Array.isArray(v)) schemaDefaults(child, v as Record<string, unknown>);
  }
  return into;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * The user's home folder: HOME when it is an absolute path, else the system's record of the user.
 * An empty or relative HOME (`env -i HOME= …`) is not a home: Node's homedir() returns it as it is,
 * and a store under it would land in whatever folder the command ran in.
 */
export function homeDir(env: NodeJS.ProcessEnv): string {
  if (env.HOME !== undefined && isAbsolute(env.HOME)) return env.HOME;
  for (const guess of [() => homedir(), () => userInfo().homedir]) {
    try {
      const h = guess();
      if (isAbsolute(h)) return h;
    } catch {
      // No such record (a uid without a passwd entry): the next guess.
    }
  }
  throw new ConfigError('no home folder: HOME is empty or not an absolute path, and the system names none for this user', {
    hint: 'set HOME to your home folder, or give the store with --root DIR (or HANDOFFS_ROOT) and the transcript folders with --watch',
  });
}

export function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  if (p === '~') return homeDir(env);
  if (p.startsWith('~/')) return join(homeDir(env), p.slice(2));
  return p;
}

function describeAjvError(file: string, e: ErrorObject): ConfigError {
  const pointer = e.instancePath === '' ? '/' : e.instancePath;
  let expected = e.message ?? 'a valid value';
  let fix = `edit ${file} so that ${pointer} matches ${CONFIG_SCHEMA_PATH}`;
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty?: string }).additionalProperty ?? '?';
    const at = `${pointer === '/' ? '' : pointer}/${extra}`;
    expected = `no key "${extra}" (unknown option)`;
    fix = `remove or rename ${at}; \`handoff config --json\` and docs/CONFIG.md list every option`;
    return new ConfigError(`${file}: invalid config at ${at}: expected ${expected}`, { hint: fix, details: { file, pointer: at } });
  }
  if (e.keyword === 'enum') expected = `one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`;
  else if (e.keyword === 'type') expected = `a value of type ${String((e.params as { type?: unknown }).type)}`;
  else expected = expected.replace(/^must (be |have |NOT have |match )?/, (_m, verb: string | undefined) => (verb === 'NOT have ' ? 'no ' : verb === 'have ' ? '' : ''));
  // A pattern of one's own is what one means to keep secret (`acme-…`): never quoted back.
  const secretish = pointer.startsWith('/redaction');
  // Cut where no run of credential characters is split: the error is redacted on its way out,
  // and a token cut in two would no longer be known for one.
  const found = e.data === undefined || secretish ? '' : `, found ${cutBeforeRedaction(JSON.stringify(e.data) ?? '', 80)}`;
  return new ConfigError(`${file}: invalid config at ${pointer}: expected ${expected}${found}`, { hint: fix, details: { file, pointer } });
}

/** Config files that passed validation are remembered this many at a time (the newest). */
const VALIDATED_KEEP = 16;

/**
 * Where validated config files are remembered: `$XDG_CACHE_HOME/handoff` (else `~/.cache/handoff`).
 * A hook runs on every compaction and status-line refresh, and loading ajv to validate an unchanged
 * file again would cost it most of its time budget.
 */
export function validatedCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homeDir(env), '.cache');
  return join(xdg, 'handoff');
}

/**
 * The version of the checks validateText makes beyond the schema (patterns, thresholds): a file a
 * version before passed may fail them now (2: a pattern compiled with its flags, which a `u` it
 * did not compile under had passed, to fail in every command that then built the redactor).
 */
const CHECKS_VERSION = '2';

/** The key of a file's validation: the schema, the checks and the file, byte for byte. */
function validationKey(raw: string): string {
  configSchema();
  return createHash('sha256').update(schemaText ?? '').update('\0').update(CHECKS_VERSION).update('\0').update(raw).digest('hex');
}

function recall(dir: string | null, key: string): FileConfig | null {
  if (dir === null) return null;
  try {
    const v = JSON.parse(readFileSync(join(dir, `config-${key}.json`), 'utf8')) as { key?: unknown; options?: unknown };
    return v.key === key && v.options !== null && typeof v.options === 'object' ? (v.options as FileConfig) : null;
  } catch {
    return null;
  }
}

function remember(dir: string | null, key: string, options: FileConfig): void {
  if (dir === null) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, `config-${key}.json`), JSON.stringify({ key, options }), { mode: 0o600 });
    const old = readdirSync(dir)
      .filter((n) => /^config-[0-9a-f]{64}\.json$/.test(n))
      .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
      .sort((a, b) => b.t - a.t)
      .slice(VALIDATED_KEEP);
    for (const o of old) unlinkSync(join(dir, o.n));
  } catch {
    // A cache that cannot be written only means validating again next time.
  }
}

/**
 * Reads and validates one config file; defaults filled in. With `cacheDir`, a file already
 * validated against this very schema is taken from there without loading the validator.
 */
/** A config file larger than this is not one (a link to a log, a device): refused with its size. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export function loadConfigFile(file: string, cacheDir: string | null = null): FileConfig {
  let raw: string;
  try {
    raw = readRegularTextSync(file, CONFIG_MAX_BYTES);
  } catch (e) {
    throw new ConfigError(`${file}: cannot read config: ${(e as Error).message}`, { hint: 'make it a JSON file of your options (not a FIFO, a device or a link to one), fix its permissions, or remove it', cause: e });
  }
  const key = validationKey(raw);
  const known = recall(cacheDir, key);
  if (known) return known;
  const cfg = validateText(file, raw);
  remember(cacheDir, key, cfg);
  return cfg;
}

function validateText(file: string, raw: string): FileConfig {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (e) {
    // V8's message quotes the text around the error, which may be a pattern of one's own: only where.
    throw new ConfigError(`${file}: invalid config at /: expected JSON, found a syntax error (${jsonErrorReason(e)})`, {
      hint: 'fix the JSON syntax (a validator such as `node -e "JSON.parse(require(\'fs\').readFileSync(process.argv[1]))" FILE` shows where)',
      details: { file, pointer: '/' },
      cause: e,
    });
  }
  const v = validate();
  try {
    if (v(data) !== true) {
      const first = v.errors?.[0];
      throw first ? describeAjvError(file, first) : new ConfigError(`${file}: invalid config`, { details: { file, pointer: '/' } });
    }
  } catch (e) {
    // A value nested thousands of levels deep (`{"watch":[[[…]]]}`) overflows the validator's or its message's stack:
    // no option is nested so, and the file is refused as any invalid config is (exit 2).
    if (!(e instanceof RangeError)) throw e;
    throw new ConfigError(`${file}: invalid config: nested too deep to be read (no option is more than a few levels deep)`, {
      hint: 'fix or remove the file; `handoff config --json` and docs/CONFIG.md list every option',
      details: { file, pointer: '/' },
      cause: e,
    });
  }
  const cfg = data as FileConfig;
  cfg.redaction.patterns.forEach((p, i) => {
    const pattern = typeof p === 'string' ? p : p.pattern;
    const problem = unsafePatternReason(pattern, typeof p === 'string' ? '' : p.flags);
    if (problem?.startsWith('it does not compile')) {
      throw new ConfigError(`${file}: invalid config at /redaction/patterns/${i}: expected a pattern that compiles with its flags, found one where ${problem}`, {
        hint: 'fix the pattern (under the `u` and `v` flags an escape must be one JavaScript knows), or drop the flag',
        details: { file, pointer: `/redaction/patterns/${i}` },
      });
    }
    if (problem) {
      throw new ConfigError(`${file}: invalid config at /redaction/patterns/${i}: expected a linear-time pattern, found one where ${problem}`, {
        hint: 'rewrite the pattern without backreferences, lookaround or a repeated group that itself repeats',
        details: { file, pointer: `/redaction/patterns/${i}` },
      });
    }
  });
  const t = cfg.context.thresholds;
  if (!(t.yellow < t.orange && t.orange < t.red)) {
    throw new ConfigError(`${file}: invalid config at /context/thresholds: expected yellow < orange < red, found ${t.yellow}, ${t.orange}, ${t.red}`, {
      hint: 'order the thresholds, e.g. {"yellow": 0.4, "orange": 0.55, "red": 0.7}',
      details: { file, pointer: '/context/thresholds' },
    });
  }
  return cfg;
}

/** Default options: what an empty config file yields. */
export function defaultOptions(): FileConfig {
  return schemaDefaults(configSchema()) as unknown as FileConfig;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The folders of the upward walk from `cwd`: itself and at most WALK_LEVELS parents. */
function walkUp(cwd: string): string[] {
  const dirs: string[] = [];
  let dir = resolve(cwd);
  const { root } = parsePath(dir);
  for (let i = 0; i <= WALK_LEVELS; i += 1) {
    dirs.push(dir);
    if (dir === root) break;
    dir = dirname(dir);
  }
  return dirs;
}

/** The config file for `cwd`: the nearest one walking up, else the user's XDG config. */
export function findConfigFile(cwd: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of walkUp(cwd)) {
    const f = join(dir, CONFIG_FILE);
    if (present(f)) return f;
  }
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homeDir(env), '.config');
  const f = join(xdg, 'handoff', CONFIG_FILE);
  return present(f) ? f : null;
}

/**
 * A config file is there when its name is, though it be a link that leads nowhere or round in a
 * loop: read, it fails with its cause and the fix, where taking it for no file would run on the
 * defaults without a word (a dotfiles link left dangling).
 */
function present(f: string): boolean {
  try {
    return lstatSync(f, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return existsSync(f);
  }
}

/** Every Claude Code projects folder and Codex sessions folder (SPEC §3). */
export function defaultWatchPaths(env: NodeJS.ProcessEnv): string[] {
  const home = homeDir(env);
  const claudeDirs = (env.CLAUDE_CONFIG_DIR ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => resolve(expandHome(s, env)));
  if (claudeDirs.length === 0) claudeDirs.push(join(home, '.claude'));
  const codex = env.CODEX_HOME && env.CODEX_HOME.length > 0 ? resolve(expandHome(env.CODEX_HOME, env)) : join(home, '.codex');
  return [...claudeDirs.map((d) => join(d, 'projects')), join(codex, 'sessions'), join(codex, 'archived_sessions')];
}

/**
 * The control socket: `$XDG_RUNTIME_DIR/handoffd/handoffd.sock` for the default store, else
 * `<root>/.handoffd/handoffd.sock`. Under XDG_RUNTIME_DIR every other store gets a name of its
 * own (`handoffd-<12 hex of sha256(root)>.sock`): one runtime folder serves every store, and
 * two daemons for two stores must not share a socket.
 */
export function socketPathFor(root: string, env: NodeJS.ProcessEnv): { socketPath: string; runtimeDir: string } {
  const xdg = env.XDG_RUNTIME_DIR;
  if (!xdg || !isAbsolute(xdg)) {
    const runtimeDir = join(root, '.handoffd');
    return { socketPath: join(runtimeDir, 'handoffd.sock'), runtimeDir };
  }
  const runtimeDir = join(xdg, 'handoffd');
  const isDefault = resolve(root) === join(homeDir(env), '.handoffs');
  const name = isDefault ? 'handoffd.sock' : `handoffd-${createHash('sha256').update(resolve(root)).digest('hex').slice(0, 12)}.sock`;
  return { socketPath: join(runtimeDir, name), runtimeDir };
}

export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const { cwd, env } = input;
  const file = findConfigFile(cwd, env);
  const options = file ? loadConfigFile(file, validatedCacheDir(env)) : defaultOptions();
  const base = file ? dirname(file) : cwd;
  const abs = (p: string): string => resolve(base, expandHome(p, env));

  let root: string | null = null;
  let source: RootSource = 'default';
  if (input.rootFlag) {
    root = resolve(cwd, expandHome(input.rootFlag, env));
    source = 'flag';
  } else if (env.HANDOFFS_ROOT && env.HANDOFFS_ROOT.length > 0) {
    root = resolve(cwd, expandHome(env.HANDOFFS_ROOT, env));
    source = 'env';
  } else if (options.storage?.path ?? options.handoff_dir) {
    root = abs((options.storage?.path ?? options.handoff_dir) as string);
    source = 'config';
  } else {
    const found = walkUp(cwd).map((d) => join(d, 'handoffs')).find(isDir);
    if (found) {
      root = found;
      source = 'discover';
    }
  }
  root ??= join(homeDir(env), '.handoffs');
  // A root that is there but no folder (a file, a device, a dangling link) cannot hold a store:
  // said here, with where it came from, not as a socket's ENOTDIR or an internal error later.
  const notFolder = rootNotFolder(root);
  if (notFolder !== null) {
    throw new ConfigError(`the store root ${root} (${ROOT_SOURCE_WORDS[source]}) ${notFolder}`, { hint: 'give the store a folder: --root DIR, HANDOFFS_ROOT or storage.path (the folder is made when missing)' });
  }

  let watchPaths: string[];
  let watchPathsSource: ResolvedConfig['watchPathsSource'];
  if (input.watchFlags && input.watchFlags.length > 0) {
    watchPaths = input.watchFlags.map((p) => resolve(cwd, expandHome(p, env)));
    watchPathsSource = 'flag';
  } else if (options.watch.paths) {
    watchPaths = options.watch.paths.map(abs);
    watchPathsSource = 'config';
  } else {
    watchPaths = defaultWatchPaths(env);
    watchPathsSource = 'default';
  }

  const redactionPatterns: RedactionPattern[] = options.redaction.patterns.map((p, i) =>
    typeof p === 'string' ? { name: `custom_${i + 1}`, pattern: p } : { name: p.name ?? `custom_${i + 1}`, pattern: p.pattern, ...(p.flags ? { flags: p.flags } : {}) },
  );
  const { socketPath, runtimeDir } = socketPathFor(root, env);
  return deepFreeze({
    root,
    source,
    file,
    schema: CONFIG_SCHEMA_PATH,
    projectName: options.project_name ?? null,
    options,
    watchPaths,
    watchPathsSource,
    socketPath,
    runtimeDir,
    redactionPatterns,
    pressure: { thresholds: { ...options.context.thresholds }, limits: { ...options.context.limits }, defaultLimit: options.context.default_limit },
  });
}

const ROOT_SOURCE_WORDS: Record<RootSource, string> = { flag: 'from --root', env: 'from HANDOFFS_ROOT', config: 'from the config file', discover: 'a handoffs/ folder found above', default: 'the default' };

/** Why a store root cannot be used as a folder, or null (a folder, or nothing there yet). */
function rootNotFolder(root: string): string | null {
  let st: Stats;
  try {
    st = lstatSync(root);
  } catch (e) {
    // Not there: made at the first write; unless a file stands where a folder above it must be.
    return (e as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'lies under a file, not a folder' : null;
  }
  if (st.isSymbolicLink()) {
    try {
      st = statSync(root);
    } catch {
      return 'is a symbolic link to nothing';
    }
  }
  return st.isDirectory() ? null : 'is not a folder';
}

/** `project_name` of the nearest config file above a folder (for project inference). */
export function projectNameAbove(dir: string): string | null {
  for (const d of walkUp(dir)) {
    const f = join(d, CONFIG_FILE);
    if (!existsSync(f)) continue;
    try {
      // A file a transcript's folder names: a FIFO or a device there is not read (readSmallFileSync).
      const data = JSON.parse(readSmallFileSync(f)) as { project_name?: unknown };
      return typeof data.project_name === 'string' && data.project_name.length > 0 ? data.project_name : null;
    } catch {
      return null;
    }
  }
  return null;
}
