import { describe, expect, it } from 'vitest';
import { frontMatterToSession, payloadToSession, payloadWithSuccessor, sealedHandoffMd, sealedPayload, withSuccessor } from '../../src/core/successor.js';

/** The successor stamp: only the front matter's line and the payloads' key change, and each seals back exactly. */

const MD = ['---', 'schema: handoff/v1', 'chain_id: c1', 'from_session: s1', 'to_session: pending', 'created_at: 2026-03-01T09:00:00.000Z', '---', '# Handoff: x', '', '```text', 'to_session: pending', '```', ''].join('\n');
const S = { session: '11111111-2222-4333-8444-555555555555', harness: 'claude', source: 'clear', offered_at: '2026-03-01T10:00:00.000Z' };
const PAYLOAD = `${JSON.stringify({ schema_version: '1.1', kind: 'handoff.summary', chain_id: 'c1', to_session: null, objective: 'é \u2028 "q"' }, null, 2)}\n`;

describe('the successor stamp', () => {
  it('changes the front matter line alone and seals back to the rendered text', () => {
    const stamped = withSuccessor(MD, S) as string;
    expect(frontMatterToSession(stamped)).toBe(S.session);
    expect(frontMatterToSession(MD)).toBe('pending');
    expect(stamped.split('\n').filter((l, i) => l !== MD.split('\n')[i])).toEqual([`to_session: ${S.session}  # took this handoff over: offered 2026-03-01T10:00:00.000Z (claude, clear), recorded in to-session.json`]);
    expect(sealedHandoffMd(stamped)).toBe(MD);
    expect(sealedHandoffMd(MD)).toBe(MD);
  });

  it('writes nothing for an id that is not a plain id, or a file without the front matter line', () => {
    expect(withSuccessor(MD, { ...S, session: 'x\nto_session: forged' })).toBeNull();
    expect(withSuccessor(MD, { ...S, session: '' })).toBeNull();
    expect(withSuccessor('# Handoff\nto_session: pending\n', S)).toBeNull();
    expect(frontMatterToSession('# no front matter\n')).toBeNull();
  });

  it('sets the payloads\' key and seals them back byte for byte', () => {
    const stamped = payloadWithSuccessor(PAYLOAD, S) as string;
    expect(payloadToSession(stamped)).toBe(S.session);
    expect(JSON.parse(stamped).to_session).toEqual({ ...S, recorded_in: 'to-session.json' });
    expect(sealedPayload(stamped)).toBe(PAYLOAD);
    expect(sealedPayload(PAYLOAD)).toBe(PAYLOAD);
    expect(payloadToSession(PAYLOAD)).toBeNull();
  });

  it('leaves a payload of an older version, without the key, alone', () => {
    const old = `${JSON.stringify({ kind: 'handoff.summary', chain_id: 'c1' }, null, 2)}\n`;
    expect(payloadWithSuccessor(old, S)).toBeNull();
    expect(sealedPayload(old)).toBe(old);
  });
});
