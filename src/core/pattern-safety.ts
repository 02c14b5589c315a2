/**
 * Whether a user's redaction pattern is safe to run over every transcript line. Its own module:
 * the config check needs it on every command, a hook included, and the redactor's tables do not.
 */

/**
 * Why a user-supplied pattern could take more than linear time on a backtracking engine, or
 * null when it is acceptable: no backreferences, no lookaround, no quantified group that itself
 * contains a quantifier (the `(a+)+` family).
 */
export function unsafePatternReason(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch (e) {
    // V8 quotes the pattern in its message; the pattern may itself be a secret the user guards.
    return `it does not compile (${(e as Error).message.split(pattern).join('…')})`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'it uses a backreference';
  if (/\(\?<?[=!]/.test(pattern)) return 'it uses lookaround';
  // Track, per open group, whether it contains a quantifier.
  const stack: boolean[] = [];
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
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const hadQuantifier = stack.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '?' || next === '{';
      if (hadQuantifier && quantified && next !== '?') return 'it repeats a group that already repeats (nested quantifier)';
      if (stack.length > 0 && (hadQuantifier || quantified)) stack[stack.length - 1] = true;
    } else if ((c === '*' || c === '+' || c === '{') && stack.length > 0) stack[stack.length - 1] = true;
  }
  return null;
}
