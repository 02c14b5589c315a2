import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The forty-second stop's redaction (docs/SECURITY.md): formats the forty-first red team named that
 * no rule read (Asana, Okta, Intercom, Vault's old tokens, Bitwarden's access tokens, Twilio's SID
 * with its token, GitHub's old installation tokens, Modal's, a GCS HMAC key and a DigitalOcean
 * Spaces key with their secrets). Every value is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const redact = (text: string): string => new Redactor().redact(text).text;

describe('credential formats alone in a sentence, with no label', () => {
  it.each([
    ['2/3862794156856090/2483828440378795:d4048aaa7aea293a75a563518fb8dc57', 'asana_token'],
    ['1/1203862794156856:d4048aaa7aea293a75a563518fb8dc57', 'asana_token'],
    ['00uFH3c0F2WT9E3lyB-xw1Ktv2i_otckRQHqZyLFYw', 'okta_token'],
    ['dG9rOjxxOMp5Zd8pdqgfrsRQDK0eUAG8xk8xsz8opIxWpe4cCpHJ9ZbD5bn8=', 'intercom_token'],
    ['s.yMpo0QdgjftzDHuxhgiKOIUz', 'vault_token'],
    ['0.48b4774c-68fa-4d2c-8f11-b1a700b1c0f1.Ryt6g3MHN4xQU1wrrMzzvNJFPVdeDU:m4LCPwenjHybnmTHkiwaC9==', 'bitwarden_token'],
    ['AC21e12ff0bd54c3fb5216df8b2df8c811:873dcbcc58e3b6f3d542f76258f18ab1', 'twilio_key'],
    ['v1.f31825e8d5084ffb8101116c2a09eca036fbc450', 'github_token'],
    ['as-bwrBe4FbdzSqvpV5Eww9DT', 'modal_token'],
    ['GOOG1EAEHZ3XHRI1AJLNPPCB6CS72GCI72M8KDMXRQRXTBU515NRFTLQ3RO38', 'gcs_hmac_access_id'],
    ['DO00MKLVOXZZDPSHMDVH', 'digitalocean_spaces_key'],
  ])('%s', (token, kind) => {
    expect(redact(`Use ${token} from now on.`)).toBe(`Use [REDACTED:${kind}] from now on.`);
    const all = kept(user('u1', `Use ${token} from now on.`), bash('b1', `./scripts/setup.sh ${token}`), result('b1', 'ok'), say('a1', `Set ${token}.`));
    expect(all).not.toContain(token.slice(0, 20));
  });

  it('takes the secret beside a GCS HMAC access id or a Spaces key, as beside an AWS key id', () => {
    expect(redact('GOOG1EAEHZ3XHRI1AJLNPPCB6CS72GCI72M8KDMXRQRXTBU515NRFTLQ3RO38 with bGc0mTyHxZyPVpnn9JVUTY5Uq2QfzDRy8BDF9Ba6')).toBe('[REDACTED:gcs_hmac_access_id] with [REDACTED:gcs_hmac_secret]');
    expect(redact('key DO00MKLVOXZZDPSHMDVH secret yMpo0QdgjftzDHuxhgiKOIUzyMpo0QdgjftzDHuxhgi')).toBe('key [REDACTED:digitalocean_spaces_key] secret [REDACTED:digitalocean_spaces_secret]');
    // A commit's hash near the id is no secret.
    expect(redact('DO00MKLVOXZZDPSHMDVH; git revert 9fceb02d0ae598e95dc970b74767f19372d61af8')).toBe('[REDACTED:digitalocean_spaces_key]; git revert 9fceb02d0ae598e95dc970b74767f19372d61af8');
  });
});

describe('ordinary text the new rules must leave alone', () => {
  it.each([
    'ship it as-is now, as-needed',
    'const n = s.length + s.toString(); s.trim()',
    'a ratio of 1/2, page 1/12345678901234 of the scan, and 2/3',
    'released 0.48.1 and 0.9.0-beta.1, then 0.48b4774c',
    'at 10:00:00Z, 00:00:00.000, 0012345 and 00FF00',
    'tags v1.2.3 and v1.0.0; v1.abc',
    'ACCEPT header; AC_RESET; ACf00',
    'GOOGLE_APPLICATION_CREDENTIALS and GOOG1',
    'DO0001 DO00ABC',
    'sha 9fceb02d0ae598e95dc970b74767f19372d61af8 and uuid 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  ])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('tokens that a kept head and tail of a long output would show (the last output the transcript ends on)', () => {
  it('finds a provider token glued to a word that holds a secret word (`stepsk-ant-…`: `psk` is one)', () => {
    const token = 'sk-ant-api03-zfg_W91vHHitjMrX4tANPtEc2a8dvJviuQlWOI5js4_7zIobLYQnM4AqWv403uyI1LznLI4hPc8D2E6uAsXdBfsS3l3EbAA';
    expect(redact(`FAILED step${token}  80`)).toBe('FAILED step[REDACTED:anthropic_key]  80');
    expect(redact(`the tokenghp_zfgW91vHHitjMrX4tANPtEc2a8dvJviuQlWx here`)).toBe('the token[REDACTED:github_token] here');
  });

  it('removes a JWT whose claims run past 8 KiB (a token with its groups, as some identity providers issue)', () => {
    const claims = Buffer.from(JSON.stringify({ sub: 'x', groups: Array.from({ length: 300 }, (_, i) => `5a083e0a-f469-1e4b-adf2-${String(i).padStart(12, '0')}`) })).toString('base64url');
    const jwt = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${claims}.udfdS3tciwmVeehJqP-brvlx3SI2ayOQ6zxlY_UrnMVXOLs1xL9ZP4kV73IR`;
    expect(claims.length).toBeGreaterThan(8192);
    expect(redact(`${jwt}\n`)).toBe('[REDACTED:jwt]\n');
  });

  it('keeps the last output the transcript ends on free of what the redactor removes', () => {
    const token = 'sk-ant-api03-zfg_W91vHHitjMrX4tANPtEc2a8dvJviuQlWOI5js4_7zIobLYQnM4AqWv403uyI1LznLI4hPc8D2E6uAsXdBfsS3l3EbAA';
    const out = `${Array.from({ length: 80 }, (_, i) => `  at Object.<anonymous> (src/mod${i}.js:${i}:13) FAILED step ${i}`).join('\n')} FAILED step${token}\n  at end`;
    const all = kept(user('u1', 'run the tests'), bash('b1', 'npm test'), result('b1', out));
    expect(all).toContain('the last output (line 3)');
    expect(all).not.toContain('W91vHHitjMrX4tANPtEc2a8d');
  });
});
