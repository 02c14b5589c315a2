/**
 * The cold-build figures before issue 13's optimisations, as `npm run bench -- --only cold` measured
 * them, kept so docs/PERFORMANCE.md shows before beside after. Null until measured.
 */
export const COLD_BEFORE: { date: string; commit: string; figures: Record<string, string> } | null = null;
