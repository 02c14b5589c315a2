/**
 * Whether a user's redaction pattern is safe to run over every transcript line. Its own module:
 * the config check needs it on every command, a hook included, and the redactor's tables do not.
 */

/**
 * Why a user-supplied pattern could take more than linear time on a backtracking engine, or
 * null when it is acceptable: no backreferences, no lookaround, no repeated group that itself
 * contains a quantifier (the `(a+)+` family) or alternatives (the `(a|a)+` family).
 */
export function unsafePatternReason(pattern: string, flags = ''): string | null {
  try {
    // With the flags it runs with: under `u` or `v` an escape that is only a letter without them
    // (`\&`) does not compile, and a pattern checked without them failed later, where the error
    // quoted it (a red team's `{"pattern": "Tr0ub4dor\\&…", "flags": "u"}`).
    new RegExp(pattern, `${[...new Set(flags.replace(/g/g, ''))].join('')}g`);
  } catch (e) {
    return `it does not compile (${compileReason(e)})`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'it uses a backreference';
  if (/\(\?<?[=!]/.test(pattern)) return 'it uses lookaround';
  // Track, per open group, whether it contains a quantifier and whether it holds alternatives.
  const stack: { quantifier: boolean; alternatives: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '[') inClass = true;
    else if (c === '(') stack.push({ quantifier: false, alternatives: false });
    else if (c === '|') {
      if (top) top.alternatives = true;
    } else if (c === ')') {
      const group = stack.pop() ?? { quantifier: false, alternatives: false };
      const next = pattern[i + 1];
      const repeated = next === '*' || next === '+' || next === '{';
      if (group.quantifier && repeated) return 'it repeats a group that already repeats (nested quantifier)';
      // `(a|a)+`: alternatives that can match the same text are tried in every combination.
      if (group.alternatives && repeated) return 'it repeats a group of alternatives (write them as a character class, or repeat each one alone)';
      const outer = stack[stack.length - 1];
      if (outer) {
        if (group.quantifier || repeated || next === '?') outer.quantifier = true;
        if (group.alternatives) outer.alternatives = true;
      }
    } else if ((c === '*' || c === '+' || c === '{') && top) top.quantifier = true;
  }
  return null;
}

/**
 * What V8 says is wrong with a pattern, without the pattern: its message quotes it whole
 * ("Invalid regular expression: /<pattern>/<flags>: Invalid escape"), and the pattern may itself
 * be a secret the user guards. The reason follows the last ": " (no reason V8 gives holds one).
 */
export function compileReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (!message.startsWith('Invalid regular expression: ')) return /Invalid flags/.test(message) ? 'invalid flags' : 'invalid regular expression';
  const reason = message.slice(message.lastIndexOf(': ') + 2);
  return /^[A-Za-z][A-Za-z ()'-]{0,60}$/.test(reason) ? reason : 'invalid regular expression';
}
