import { describe, expect, it } from 'vitest';
import { ingestText, jsonl } from './ingest-helper.js';

/** A line's time is kept as written only when it is an ISO 8601 time; anything else is redacted like any text. */
describe("a line's time", () => {
  const token = `ghp_${'a1B2c3D4'.repeat(5)}`;
  const line = (timestamp: string): string =>
    jsonl({ type: 'user', uuid: 'u1', sessionId: 's', cwd: '/w', timestamp, message: { role: 'user', content: 'run the tests' } });

  it('in ISO 8601 form passes as it is', () => {
    for (const ts of ['2026-04-26T21:55:13.286Z', '2026-04-26T21:55:13Z', '2026-04-26T21:55:13.123456789+02:00']) {
      expect(ingestText(line(ts)).turns[0]?.ts).toBe(ts);
    }
  });

  it('holding anything more is redacted: a credential after a time, on a second line, or in place of one', () => {
    for (const ts of [`2026-04-26T21:55:13Z ${token}`, `2026-04-26T21:55:13Z\n${token}`, token]) {
      const { turns, state } = ingestText(line(ts));
      expect(turns[0]?.ts).not.toContain(token);
      expect(turns[0]?.ts).toContain('[REDACTED');
      expect(state.redactions).toBeGreaterThan(0);
    }
  });
});
