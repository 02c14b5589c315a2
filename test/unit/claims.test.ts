import { describe, expect, it } from 'vitest';
import { SessionClaims } from '../../src/engine/claims.js';

/** The table of sessions being built (src/engine/claims.ts): what the engine's one-build-at-a-time rests on. */

describe('session claims', () => {
  it('claims all of its keys or none, and a held key refuses any claim that names it', () => {
    const buffer = new SharedArrayBuffer(4 * (1 + 2 * SessionClaims.SLOTS));
    const a = new SessionClaims(buffer);
    const b = new SessionClaims(buffer);
    expect(a.tryClaim(['inode:1:2', 'session:x'])).toBe(true);
    expect(b.tryClaim(['inode:9:9', 'session:x'])).toBe(false);
    // Nothing of the refused claim was taken: its other key is free.
    expect(b.tryClaim(['inode:9:9'])).toBe(true);
    a.release(['inode:1:2', 'session:x']);
    expect(b.tryClaim(['inode:1:2', 'session:x'])).toBe(true);
  });

  it("frees a thread's claims at once when the thread is gone", () => {
    const claims = new SessionClaims();
    expect(claims.tryClaim(['session:a', 'session:b'])).toBe(true);
    claims.releaseOwner(claims.owner);
    expect(claims.tryClaim(['session:a', 'session:b'])).toBe(true);
  });

  it('refuses a claim when the table is full, and the wait for it still sleeps', async () => {
    const claims = new SessionClaims();
    for (let i = 0; i < SessionClaims.SLOTS; i += 1) expect(claims.tryClaim([`session:${i}`])).toBe(true);
    expect(claims.tryClaim(['session:more'])).toBe(false);
    const t0 = performance.now();
    await claims.whileHeld(['session:more'], 30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});
