/**
 * Codex "code mode" (0.144 and later): the model writes one JavaScript script per `exec` call and
 * the script calls tools — `tools.exec_command({"cmd": …})`, `tools.apply_patch(patch)`,
 * `tools.update_plan({…})`. Nothing runs here: the script is scanned for those calls and their
 * literal arguments, which in practice are JSON. What cannot be read literally is left out.
 */

export interface CodeModeCalls {
  commands: string[];
  /** The folder each command runs in (`workdir`), index for index with `commands`; undefined where the call gives none. */
  workdirs: (string | undefined)[];
  patches: string[];
  plan: unknown[] | null;
  /** `tools.write_stdin({session_id, chars})`: input sent to (or a poll of) a running command's session. */
  stdin: { session: string; chars: string }[];
  /** A command asks to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  escalated: boolean;
}

/** A shell call's arguments ask to run outside the sandbox: `sandbox_permissions: "require_escalated"`, 0.40's `with_escalated_permissions: true`. */
export function asksEscalation(args: unknown): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const rec = args as Record<string, unknown>;
  return rec.sandbox_permissions === 'require_escalated' || rec.with_escalated_permissions === true;
}

/** The end of the string literal that opens at `i` (the index just past its closing quote). */
function literalEnd(src: string, i: number): number {
  const q = src[i];
  let j = i + 1;
  while (j < src.length) {
    const c = src[j];
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === q) return j + 1;
    j += 1;
  }
  return src.length;
}

/** The balanced `{…}` or `[…]` starting at `i`, skipping over string literals. */
function balanced(src: string, i: number): string | null {
  const open = src[i];
  const close = open === '{' ? '}' : open === '[' ? ']' : null;
  if (close === null) return null;
  let depth = 0;
  let j = i;
  while (j < src.length) {
    const c = src[j] as string;
    if (c === '"' || c === "'" || c === '`') {
      j = literalEnd(src, j);
      continue;
    }
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return src.slice(i, j + 1);
    }
    j += 1;
  }
  return null;
}

/** A JavaScript string literal's value, for the escapes JSON shares; null when it has others. */
function decodeLiteral(lit: string): string | null {
  const q = lit[0];
  const body = lit.slice(1, -1);
  if (q === '`') return body.includes('${') ? null : body.replace(/\\`/g, '`').replace(/\\\\/g, '\\');
  const json = q === '"' ? body : body.replace(/\\'/g, "'").replace(/"/g, '\\"');
  try {
    return JSON.parse(`"${json}"`) as string;
  } catch {
    return null;
  }
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The session a `write_stdin` call writes to (a number or a string of digits), and what it sends. */
export function stdinOf(args: unknown): { session: string; chars: string } | null {
  if (typeof args !== 'object' || args === null) return null;
  const rec = args as Record<string, unknown>;
  const id = rec.session_id;
  const session = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' && /^\d{1,12}$/.test(id) ? id : null;
  if (session === null) return null;
  return { session, chars: typeof rec.chars === 'string' ? rec.chars : '' };
}

export function codeModeCalls(script: string): CodeModeCalls {
  const out: CodeModeCalls = { commands: [], workdirs: [], patches: [], plan: null, stdin: [], escalated: false };
  for (const m of script.matchAll(/\btools\.(exec_command|update_plan|write_stdin)\s*\(\s*/g)) {
    const at = (m.index ?? 0) + m[0].length;
    const obj = balanced(script, at);
    if (obj === null) continue;
    const parsed = parseObject(obj);
    if (typeof parsed !== 'object' || parsed === null) continue;
    const rec = parsed as Record<string, unknown>;
    if (m[1] === 'exec_command') {
      const cmd = rec.cmd ?? rec.command;
      if (typeof cmd === 'string') {
        out.commands.push(cmd);
        if (asksEscalation(rec)) out.escalated = true;
        const dir = rec.workdir ?? rec.working_directory;
        out.workdirs.push(typeof dir === 'string' && dir.length > 0 ? dir : undefined);
      }
    } else if (m[1] === 'write_stdin') {
      const poll = stdinOf(rec);
      if (poll !== null) out.stdin.push(poll);
    } else if (Array.isArray(rec.plan)) {
      out.plan = rec.plan;
    }
  }
  // Patches are usually built in a variable first; any literal holding one is the patch.
  for (let i = 0; i < script.length; i += 1) {
    const c = script[i];
    if (c !== '"' && c !== "'" && c !== '`') continue;
    const end = literalEnd(script, i);
    const lit = script.slice(i, end);
    if (lit.includes('*** Begin Patch')) {
      const value = decodeLiteral(lit);
      if (value !== null) out.patches.push(value);
    }
    i = end - 1;
  }
  return out;
}
