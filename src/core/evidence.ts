import { escapeControls, stripControls } from './control-chars.js';
import type { Redactor } from './redact.js';
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

/**
 * A capture as the store may hold it: every name in it redacted (a branch is a name anyone may
 * give, a credential too: `hotfix/ghp_…`), and each one line (a newline in a folder's name would
 * write lines of its own into HANDOFF.md's front matter). The build records this; `resume`
 * compares its own capture in the same form, or a redacted branch would always read as drift.
 */
export function redactedGit(r: Redactor, g: GitEvidence): GitEvidence {
  // Paths of the repository are file names: shown, never obeyed.
  const red = (s: string | null): string | null => (s === null ? null : r.redact(stripControls(s)).text);
  const name = (s: string): string => r.redact(escapeControls(s)).text;
  const line = (s: string | null): string | null => (s === null ? null : name(s));
  return { ...g, cwd: line(g.cwd), top: line(g.top), branch: line(g.branch), diffstat: red(g.diffstat), reason: line(g.reason), changed: g.changed.map(name), untracked: g.untracked.map(name) };
}
