import { describe, expect, it } from 'vitest';
import { errorFromWire, errorToWire } from '../../src/engine/wire.js';
import { describeFailure } from '../../src/daemon/failures.js';
import { CorruptLineError, HandoffError, StoreWriteError } from '../../src/errors.js';

/** Errors cross from a build worker as structured clones, which keep no class (engine/wire.ts). */

const across = (e: unknown): Error => errorFromWire(structuredClone(errorToWire(e)));

describe('an error from a build worker', () => {
  it('is the same class on the main thread, with its code, message, hint and fields', () => {
    const sent = new CorruptLineError('/t/s.jsonl', 7, 1234, 'unexpected end');
    const got = across(sent);
    expect(got).toBeInstanceOf(CorruptLineError);
    expect(got).toBeInstanceOf(HandoffError);
    const c = got as CorruptLineError;
    expect([c.code, c.exitCode, c.message, c.hint, c.file, c.line, c.offset]).toEqual([sent.code, sent.exitCode, sent.message, sent.hint, '/t/s.jsonl', 7, 1234]);
    expect(c.toJSON()).toEqual(sent.toJSON());
  });

  it('keeps the errno a failure is judged by', () => {
    const write = across(new StoreWriteError('/s/x: ENOSPC', { details: { errno: 'ENOSPC' } }));
    expect(describeFailure(write, '/t/a.jsonl', true)).toMatchObject({ code: 'HANDOFF_ERR_STORE_WRITE', signature: 'HANDOFF_ERR_STORE_WRITE ENOSPC' });
    const raw = across(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }));
    expect(describeFailure(raw, '/t/a.jsonl', true)).toMatchObject({ code: 'HANDOFF_ERR_RESOURCE' });
  });
});
