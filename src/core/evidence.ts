/** Repository evidence as the render sees it (SPEC §7). Captured by src/git, rendered here. */

export type GitStatus = 'ok' | 'no-cwd' | 'cwd-gone' | 'not-a-repo' | 'git-missing' | 'timeout' | 'error' | 'disabled';

export interface GitEvidence {
  status: GitStatus;
  /** Why the fields are null, in words, when status is not ok. */
  reason: string | null;
  cwd: string | null;
  top: string | null;
  branch: string | null;
  head: string | null;
  dirty: boolean | null;
  changed: string[];
  untracked: string[];
  changed_total: number;
  untracked_total: number;
  diffstat: string | null;
  captured_at: string | null;
}

export const GIT_LIST_LIMIT = 200;

export function gitUnavailable(status: Exclude<GitStatus, 'ok'>, reason: string, cwd: string | null, at: string | null): GitEvidence {
  return {
    status,
    reason,
    cwd,
    top: null,
    branch: null,
    head: null,
    dirty: null,
    changed: [],
    untracked: [],
    changed_total: 0,
    untracked_total: 0,
    diffstat: null,
    captured_at: at,
  };
}
