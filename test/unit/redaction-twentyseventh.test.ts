import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { unsafePatternReason } from '../../src/core/pattern-safety.js';
import { scanForSecrets } from '../../src/core/secret-scan.js';
import { parseSettings } from '../../src/hooks/settings.js';
import { parseRequest } from '../../src/control/protocol.js';
import { kept } from './kept-helper.js';

/**
 * The twenty-seventh red team (docs/SECURITY.md) went after the paths a secret takes besides a
 * message's text: bytes that do not decode, metadata, error messages, the config's own patterns.
 * Every value below is made up.
 */

const GH = 'ghp_Zq8Rt3Lm9Xv2Kp7Wn4Bc6Hd1Fj5Gs0TyUeAa';
const AKIA = 'AKIAQ3EGT7PL2MV9XK4R';
const SLACK = 'xoxb-2-Qw7Er2Ty9Ui4Op1As6Df3Gh8Jk';
/** A piece of each that no build may keep. */
const PIECES = ['Zq8Rt3Lm9Xv2', 'n4Bc6Hd1Fj5G', 'Q3EGT7PL2MV9', 'Qw7Er2Ty9Ui4', 'Op1As6Df3Gh8'];

/** U+FFFD put inside a value after its fifth character after the prefix: what an invalid byte decodes as. */
const broken = (v: string, at = 12): string => `${v.slice(0, at)}\ufffd${v.slice(at)}`;

const meta = { timestamp: '2026-05-02T10:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.125.0', originator: 'codex_cli_rs' } };
const event = (payload: Record<string, unknown>) => ({ timestamp: '2026-05-02T10:00:10Z', type: 'event_msg', payload });

describe('a credential with U+FFFD inside (an invalid byte, a cut multibyte sequence, a lone surrogate)', () => {
  it('is redacted as if it were not there, raw and JSON-escaped', () => {
    const r = new Redactor();
    for (const v of [GH, AKIA, SLACK]) {
      const text = `deploy with ${broken(v)} now`;
      const out = r.redact(text).text;
      for (const p of PIECES) expect(out, v).not.toContain(p);
      const escaped = r.redact(JSON.stringify(JSON.stringify({ note: text }))).text;
      expect(escaped.replace(/\\+u[fF]{3}[dD]/g, ''), v).not.toMatch(/Zq8Rt3Lm9Xv2|Q3EGT7PL2MV9|Qw7Er2Ty9Ui4/);
    }
  });

  it('is found by the second, independent scan', () => {
    expect(scanForSecrets(`token ${broken(GH)} here`).map((h) => h.kind)).toEqual(['github_token']);
    expect(scanForSecrets(`key ${broken(AKIA, 8)}`).map((h) => h.kind)).toEqual(['aws_access_key_id']);
  });

  it('reaches neither the timeline, the state, the handoff nor the payloads, from a message or a model name', () => {
    const all = kept(
      { ...meta, payload: { ...meta.payload } },
      event({ type: 'user_message', message: `use ${broken(GH)} for the deploy` }),
      { timestamp: '2026-05-02T10:00:11Z', type: 'turn_context', payload: { cwd: '/w', approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write' }, model: broken(GH, 20) } },
      event({ type: 'agent_message', message: 'Deploying.' }),
    );
    for (const p of PIECES.slice(0, 2)) expect(all).not.toContain(p);
  });
});

describe("a Codex policy that is not one of Codex's names", () => {
  it('is said as such, not cut to 40 characters before the redactor sees it', () => {
    const all = kept(
      meta,
      { timestamp: '2026-05-02T10:00:01Z', type: 'turn_context', payload: { cwd: '/w', approval_policy: `on-request ${GH}`, sandbox_policy: { type: 'workspace-write' }, model: 'gpt-5' } },
      event({ type: 'user_message', message: 'Ship it' }),
    );
    expect(all).not.toContain('Zq8Rt3Lm9Xv2');
    expect(all).toContain('approval (a value Codex does not write, 51 characters, not shown), sandbox `workspace-write`');
  });

  it("and Codex's own names are quoted", () => {
    const all = kept(meta, { timestamp: '2026-05-02T10:00:01Z', type: 'turn_context', payload: { cwd: '/w', approval_policy: 'never', sandbox_policy: { mode: 'danger-full-access' }, model: 'gpt-5' } }, event({ type: 'user_message', message: 'Go' }));
    expect(all).toContain('approval `never`, sandbox `danger-full-access`');
  });
});

describe('a redaction pattern of the config that compiles only without its flags', () => {
  const pattern = 'Tr0ub4dor\\&Zx9Kq2Lm7Wp';

  it('is refused by the check, which names the reason and not the pattern', () => {
    expect(unsafePatternReason(pattern)).toBeNull();
    const why = unsafePatternReason(pattern, 'u');
    expect(why).toMatch(/^it does not compile \(Invalid escape\)$/);
    expect(() => new Redactor([{ name: 'vault', pattern, flags: 'u' }])).toThrow(/^redaction pattern "vault" cannot be used: it does not compile/);
    try {
      new Redactor([{ name: 'vault', pattern, flags: 'u' }]);
    } catch (e) {
      expect((e as Error).message).not.toContain('Tr0ub4dor');
    }
  });
});

describe("JSON.parse's excerpt of what it could not read", () => {
  it('is not quoted back from a settings file or a socket request', () => {
    const settings = parseSettings('{\n  "env": {"PGPASSWORD": Pz9kWq4Lm2, "GITHUB_TOKEN": "x"}\n}\n');
    expect(settings.ok).toBe(false);
    expect(JSON.stringify(settings)).not.toContain('Pz9kWq4Lm2');
    expect(JSON.stringify(settings)).toContain('it is not strict JSON (unexpected character');
    const rpc = parseRequest('{"jsonrpc":"2.0","method":"status","params":{"token": Pz9kWq4Lm2}}');
    expect(JSON.stringify(rpc)).not.toContain('Pz9kWq4Lm2');
  });
});

describe("the redactor's own mark, redacted again", () => {
  it('labels nothing after it (a subagent of a session whose id was a token kept its id readable)', () => {
    const r = new Redactor();
    expect(r.redact('[REDACTED:github_token].agent-a1b2c3d4-45b34394').text).toBe('[REDACTED:github_token].agent-a1b2c3d4-45b34394');
    expect(r.redact('no sessions in project [REDACTED:internal_token] (abcdef123456ghij)').count).toBe(0);
    expect(r.redact(`github_token=${GH}`).text).toBe('github_token=[REDACTED:github_token]');
  });
});

describe('the twenty-eighth red team: realistic outputs of the commands developers run', () => {
  it("a generated password with a template's or a wrapper's characters in it is no placeholder", () => {
    const r = new Redactor();
    for (const [line, secret] of [
      ['"db_password": "e^vTe~]nNgW&7#{!9Qx"', 'nNgW&7#{!9Qx'],
      ["DB_PASSWORD='ab{{c$d9X!kq2#{zz'", 'c$d9X!kq2#{zz'],
      ['DB_PASSWORD=@Xq8Lm3Wz9Rk@', 'Xq8Lm3Wz9Rk'],
      ['SECRET_KEY = "`k9Tq2Wz7Lp4Rv8"', 'k9Tq2Wz7Lp4Rv8'],
    ] as const) {
      expect(r.redact(line).text, line).not.toContain(secret);
    }
  });

  it('while a reference that closes around a name stays', () => {
    const r = new Redactor();
    for (const line of ['DB_PASSWORD="${DB_PASSWORD}"', 'password: "{{ vault_db_password }}"', '"db_password": "#{db.password}"', 'password = "@db.password@"', 'password: "${DB_PASS:-changeme}"', 'api_key: "<your-api-key>"']) {
      expect(r.redact(line).count, line).toBe(0);
    }
  });
});

describe("a secret manager's read in its JSON (the twenty-eighth red team)", () => {
  it("removes AWS SSM's SecureString value and Azure Key Vault's secret value, and keeps a plain parameter", () => {
    const r = new Redactor();
    const ssm = '{\n    "Parameter": {\n        "Name": "/prod/db/url",\n        "Type": "SecureString",\n        "Value": "lzs8nW1AEyqU-pg-x7",\n        "Version": 3\n    }\n}';
    const az = '{\n  "attributes": {\n    "enabled": true\n  },\n  "id": "https://kv-prod.vault.azure.net/secrets/stripe/4c7e2a9b1f3d4e5a8b6c0d2e1f9a7b3c",\n  "kid": null,\n  "name": "stripe",\n  "tags": {},\n  "value": "iiYcwN5Aj0FMq9x"\n}';
    for (const text of [ssm, az, JSON.stringify(JSON.stringify(ssm)), JSON.stringify(az)]) {
      const out = r.redact(text).text;
      expect(out).not.toContain('lzs8nW1AEyqU');
      expect(out).not.toContain('iiYcwN5Aj0FM');
    }
    expect(r.redact('{"Parameter": {"Name": "/prod/region", "Type": "String", "Value": "eu-west-1"}}').count).toBe(0);
    expect(r.redact('[{"id": "https://kv.vault.azure.net/secrets/a", "name": "a"}, {"id": "https://kv.vault.azure.net/secrets/b", "name": "b"}]').count).toBe(0);
  });
});
