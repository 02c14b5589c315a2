/**
 * The cold-build figures before issue 13's optimisations, as `npm run bench -- --only cold` measured
 * them, kept so docs/PERFORMANCE.md shows before beside after (the "after" column is written by
 * hand once the changes land, from the figures the benchmark then prints).
 */
export const COLD_BEFORE: { date: string; commit: string; figures: Record<string, string> } | null = {
  date: '2026-12-01',
  commit: 'd46582d (src/ as on main)',
  figures: {
    'transcripts (corpus distribution)': '315 files, 161 MiB (200 Claude Code, 115 Codex), recorded folders → 40 git repositories',
    'build, one process (wall, median of 3)': '20.75 s: 15.2 files/s, 7.77 MB/s',
    'parse floor, same run': '106.52 MB/s',
    '**build / floor** (wall; target ≥ 0.5)': '**0.073**',
    'CPU seconds, build / floor': '14.83 s / 1.02 s → 0.069',
    'peak RSS of the build (target ≤ 200 MB)': '161.8 MB',
    'store / source (du; target ≤ 30 %)': '95.1 % (timeline.jsonl 32.3 %, TOOLS.md 22.9 %, .state 16.4 %, HANDOFF.llm.json 14.8 % of the source)',
    'ccusage 17.2.1 on the Claude share (100 MiB)': '27.61 MB/s, 3.62 s, 255 MB → build / peer 0.28',
    'large files (81 files, 201 MiB, in process)': '6.11 MB/s, ratio 0.079 (readline floor), 0.132 (whole-file floor)',
    'host load average during the runs (2 cores)': '7 to 9',
  },
};
