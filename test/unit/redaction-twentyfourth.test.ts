import { describe, expect, it } from 'vitest';
import { base, call, result, say, user } from './claude-records.js';
import { ingestText, jsonl } from './ingest-helper.js';
import { kept } from './kept-helper.js';

/**
 * The twenty-fourth red team (docs/SECURITY.md): text the handoff has carried since 2026-12-04
 * through new paths — a compaction summary's parts, a recap's next step, an agent's name, the
 * messages sent to it, a task's and a subagent's fields — each cut or parted from its label before
 * the redactor read it. Every value below is made up.
 */

const AWS_ID = 'AKIAQ7ZK2M9XW4RT8VN3';
const AWS_SECRET = 'wJa7rXUtnF3MI9K7MDENGbPxRfiCYq2Lx8mZp4Tb';
const PASSWORD = 'Xm1Uq8Lr4Ts2Wv6ZjJ';
const GH = 'ghp_Q7zK2m9Xw4Rt8Vn3Pl6HyB1cD5fG0jK7mN2q';

/** Everything a build keeps of the records: the state (as JSON), HANDOFF.md and both payloads. */
const leaksOf = (all: string, ...values: string[]): string[] => values.filter((v) => all.includes(v) || all.includes(v.slice(0, 16)) || all.includes(v.slice(-16)));

const compacted = (pending: string, current = 'Writing src/export.ts.') => ({
  ...base,
  type: 'user',
  uuid: 'cs',
  isCompactSummary: true,
  message: { role: 'user', content: `Summary:\n1. Primary Request and Intent:\n   Ship the export.\n\n7. Pending Tasks:\n${pending.split('\n').map((l) => `   ${l}`).join('\n')}\n\n8. Current Work:\n   ${current}\n\n9. Optional Next Step:\n   Run the tests.\n` },
});

describe('a compaction summary is redacted whole before its parts are read and cut', () => {
  it('at the 900-character cut: a labelled value, a PEM block, a password piped to a login', () => {
    for (let pad = 860; pad <= 905; pad += 3) {
      const lead = `- finish the export, ${'then document docs/export.md, '.repeat(40)}`.slice(0, pad - 30);
      for (const text of [`DB_PASSWORD=${PASSWORD} and then go on`, `echo '${PASSWORD}' | docker login ghcr.io -u deploy --password-stdin`, `curl -fsS -u admin:${PASSWORD} https://api.example.test/v1/health`]) {
        const all = kept(user('u1', 'Ship the export'), compacted(`${lead} ${text}`), say('a1', 'Continuing.'));
        expect(leaksOf(all, PASSWORD), `${text} at ${pad}`).toEqual([]);
      }
    }
  });

  it('with the key id in one part and the secret key in another', () => {
    const all = kept(user('u1', 'Set up the deploy key'), compacted(`- created the IAM access key ${AWS_ID} for deploy-bot`, `Putting ${AWS_SECRET} into the GitHub Actions settings.`), say('a1', 'Continuing.'));
    expect(leaksOf(all, AWS_ID, AWS_SECRET)).toEqual([]);
  });

  it('and its parts are still read', () => {
    const all = kept(user('u1', 'Ship the export'), compacted('- document the export format'), say('a1', 'Continuing.'));
    expect(all).toContain('document the export format');
  });
});

describe('fields of one call that name a credential in one and give it in the other', () => {
  it("a task's subject and description", () => {
    const all = kept(user('u1', 'Wire the key'), call('t1', 'TaskCreate', { subject: `Wire ${AWS_ID} into CI`, description: `Paste ${AWS_SECRET} into the repo settings` }), result('t1', 'Task #1 created successfully: Wire'), say('a1', 'Created.'));
    expect(leaksOf(all, AWS_ID, AWS_SECRET)).toEqual([]);
    expect(all).toContain('into the repo settings');
  });

  it("a subagent's description and prompt", () => {
    const all = kept(user('u1', 'Wire the key'), call('g1', 'Agent', { description: `Wire ${AWS_ID} into CI`, prompt: `Add ${AWS_SECRET} to the deploy job of .github/workflows/deploy.yml and report.`, subagent_type: 'general-purpose' }), result('g1', 'Done.'), say('a1', 'Done.'));
    expect(leaksOf(all, AWS_ID, AWS_SECRET)).toEqual([]);
    expect(all).toContain('to the deploy job of .github/workflows/deploy.yml');
  });

  it("a background job's description and command", () => {
    const all = kept(user('u1', 'Check the key'), call('b1', 'Bash', { command: `./scripts/check-key.sh ${AWS_SECRET}`, description: `Check key ${AWS_ID}`, run_in_background: true }), result('b1', 'Command running in background with ID: b7x2'), say('a1', 'Started.'));
    expect(leaksOf(JSON.stringify(ingestText(jsonl(user('u1', 'Check the key'), call('b1', 'Bash', { command: `./scripts/check-key.sh ${AWS_SECRET}`, description: `Check key ${AWS_ID}`, run_in_background: true }))).state.ledger), AWS_SECRET)).toEqual([]);
    expect(leaksOf(all, AWS_ID)).toEqual([]);
  });
});

describe('names cut only after the redactor read them whole', () => {
  const long = `release-token-rotator-for-the-nightly-pipeline-${GH}`;
  it("an agent's name and the name a message is sent to, longer than the 80 characters kept", () => {
    const all = kept(user('u1', 'Rotate'), call('g1', 'Agent', { description: 'Rotate the release token', prompt: 'Rotate it.', name: long }), result('g1', 'Spawned.'), call('m1', 'SendMessage', { to: long, message: 'round 2' }), result('m1', 'Message sent'), say('a1', 'Sent.'));
    expect(leaksOf(all, GH)).toEqual([]);
  });

  it("a recap's next step, cut at 400", () => {
    const recap = { ...base, type: 'system', subtype: 'away_summary', content: `Goal: ship. Status: webhooks done. Next action: ${'check the payment webhook retries, '.repeat(10).slice(0, 375)} set DB_PASSWORD=${PASSWORD} then deploy` };
    const all = kept(user('u1', 'Ship'), say('a1', 'Done.'), recap);
    expect(leaksOf(all, PASSWORD)).toEqual([]);
  });
});

/** The twenty-fifth red team: what the joint reading must leave alone (docs/SECURITY.md). */
describe('fields read together only where an AWS key id makes the other field a secret', () => {
  const bash = (id: string, command: string, description: string) => call(id, 'Bash', { command, description });

  it("keeps the base64 ids of a command whose description speaks of a secret (Kafka's cluster id, GraphQL node ids, Slack cursors)", () => {
    for (const [description, command, keep] of [
      ['Format KRaft storage for the secret-rotation events broker', 'docker compose exec kafka kafka-storage.sh format -t MkU3OEVBNTcwNTJENDM2Qk -c server.properties', 'MkU3OEVBNTcwNTJENDM2Qk'],
      ['Resolve the review thread about the hardcoded secret', `gh api graphql -f query='mutation { resolveReviewThread(input: {threadId: "MDIzOlB1bGxSZXF1ZXN0UmV2aWV3VGhyZWFkNTI3NjQ4MTkzOnYy"}) { thread { isResolved } } }'`, 'MDIzOlB1bGxSZXF1ZXN0UmV2aWV3VGhyZWFkNTI3NjQ4MTkzOnYy'],
      ['Page through Slack users to find the secret-rotation bot', 'curl -s -G https://slack.com/api/users.list -d cursor=dXNlcjpVMDYxTkZUVDJBQg==', 'dXNlcjpVMDYxTkZUVDJBQg=='],
    ] as const) {
      const all = kept(user('u1', 'Go on'), bash('b1', command, description), result('b1', 'ok'), say('a1', 'Done.'));
      expect(all, description).toContain(keep);
    }
  });

  it('keeps a git commit near an AWS key id: 40 lower-case hex digits are no secret key', () => {
    const sha = '5d2f8a1c9e7b3d6f4a0c8e2b1d9f7a3c5e6b8d0a';
    const all = kept(user('u1', 'Revert it'), bash('b1', `git revert --no-edit ${sha}`, `Revert the commit that added ${AWS_ID} to deploy.env`), result('b1', '[main 1a2b3c4] Revert'), say('a1', 'Reverted.'));
    expect(all).toContain(sha);
    expect(leaksOf(all, AWS_ID)).toEqual([]);
  });

  it('redacts a value once: a tag is not read again as a value', () => {
    const all = kept(user('u1', 'Test the key'), bash('b1', `curl https://api.stripe.com/v1/charges -u rk_live_51Hq8Lm3Xz7Rt2Wv8Qp4Yk9Bn6Jc1Df5Gh0Ka3Se8Tu2Iy7Ko: # ${AWS_ID}`, `Test the Stripe key beside ${AWS_ID}`), result('b1', 'OK'), say('a1', 'Done.'));
    expect(all).not.toContain('[REDACTED:[REDACTED');
  });
});

describe("Go's test verdicts (the twenty-fifth red team: `--- PASS: TestLogin/rejects_bad_password` lost its test's name)", () => {
  it('keep the test names; a password after PASS: still goes', async () => {
    const { Redactor } = await import('../../src/core/redact.js');
    const r = new Redactor();
    for (const line of ['--- PASS: TestLogin/rejects_bad_password (0.01s)', '    --- PASS: TestParse/Valid_Input (0.00s)', 'PASS: TestLogin/rejects_bad_token']) expect(r.redact(line).text).toBe(line);
    expect(r.redact('PASS: hunter2Xq9!zz').text).toBe('PASS: [REDACTED:secret_assignment]');
    expect(r.redact('SMTP_PASS: Xk82mQp3Lz9Vw4').text).toBe('SMTP_PASS: [REDACTED:secret_assignment]');
  });
});
