import type { GitEvidence } from './evidence.js';

/**
 * Repository drift between what a handoff recorded and what is true now (seed 002, Resume
 * step 3). Only material drift is called out: another repository, branch or HEAD, a clean tree
 * turned dirty or back, the folder gone or no longer a repository. A dirty tree that is still
 * dirty with other files is not drift: the handoff's own session is what made it dirty.
 */

export type DriftStatus = 'none' | 'drift' | 'unknown';
export type DriftField = 'cwd' | 'repository' | 'branch' | 'head' | 'dirty';

export interface DriftItem {
  field: DriftField;
  recorded: string | null;
  now: string | null;
}

export interface DriftReport {
  status: DriftStatus;
  /** The material differences; empty unless status is `drift`. */
  items: DriftItem[];
  /** One sentence saying what was compared and what it found. */
  summary: string;
}

/** Git states in which "no repository" is a fact, not a failure to look. */
const ANSWERED = new Set<GitEvidence['status']>(['ok', 'not-a-repo', 'cwd-gone']);

export function describeDirty(g: GitEvidence): string | null {
  if (g.dirty === null) return null;
  return g.dirty ? `dirty (${g.changed_total} changed, ${g.untracked_total} untracked)` : 'clean';
}

export function describeBranch(g: GitEvidence): string | null {
  if (g.status !== 'ok') return null;
  return g.branch ?? 'detached HEAD';
}

export function compareGit(recorded: GitEvidence, now: GitEvidence): DriftReport {
  if (!ANSWERED.has(now.status)) {
    return { status: 'unknown', items: [], summary: `the repository cannot be inspected now: ${now.reason ?? now.status}` };
  }
  if (now.status === 'cwd-gone') {
    return { status: 'drift', items: [{ field: 'cwd', recorded: recorded.cwd ?? now.cwd, now: null }], summary: `the recorded working folder is gone: ${now.reason ?? now.cwd ?? ''}` };
  }
  if (!ANSWERED.has(recorded.status)) {
    return { status: 'unknown', items: [], summary: `the handoff recorded no repository state to compare (${recorded.reason ?? recorded.status})` };
  }
  if (recorded.status !== 'ok' && now.status !== 'ok') {
    return { status: 'none', items: [], summary: 'not a git repository, then or now' };
  }
  if (recorded.status !== 'ok' || now.status !== 'ok') {
    const item: DriftItem = { field: 'repository', recorded: recorded.top, now: now.top };
    const was = recorded.status === 'cwd-gone' ? 'the folder was gone when recorded' : 'it was not when recorded';
    return { status: 'drift', items: [item], summary: recorded.status === 'ok' ? 'the folder is no longer inside a git repository' : `the folder is inside a git repository now; ${was}` };
  }
  const items: DriftItem[] = [];
  if (recorded.top !== now.top) items.push({ field: 'repository', recorded: recorded.top, now: now.top });
  if (recorded.branch !== now.branch) items.push({ field: 'branch', recorded: describeBranch(recorded), now: describeBranch(now) });
  if (recorded.head !== now.head) items.push({ field: 'head', recorded: recorded.head, now: now.head });
  if (recorded.dirty !== now.dirty) items.push({ field: 'dirty', recorded: describeDirty(recorded), now: describeDirty(now) });
  if (items.length === 0) return { status: 'none', items, summary: 'repository, branch, HEAD and dirty state are as recorded' };
  return { status: 'drift', items, summary: `${items.length} material change(s): ${items.map((i) => i.field).join(', ')}` };
}
