import { describe, expect, it } from 'vitest';
import { isLive } from '../../src/daemon/files.js';

describe('the live window', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  it('takes a file written within it, and one a few seconds ahead of the clock', () => {
    expect(isLive(now - 5_000, 60_000, now)).toBe(true);
    expect(isLive(now + 3_000, 60_000, now)).toBe(true);
  });

  it('does not take one written before it, nor one dated far in the future (it would be live for good)', () => {
    expect(isLive(now - 61_000, 60_000, now)).toBe(false);
    expect(isLive(Date.parse('2100-01-01T00:00:00Z'), 60_000, now)).toBe(false);
  });
});
