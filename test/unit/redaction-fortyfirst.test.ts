import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/core/redact.js';
import { call, result, say, user } from './claude-records.js';
import { kept } from './kept-helper.js';

/**
 * The forty-first stop's redaction (docs/SECURITY.md): the formats its red team found no rule for
 * (Slack's client token and cookie, a JWT of spaced JSON, an encrypted JWT, Azure DevOps' new
 * tokens, AWS's session tokens) and a private key given as a list of its lines on one line. Every
 * value is made up.
 */

const bash = (id: string, command: string) => call(id, 'Bash', { command, description: 'run' });
const redact = (text: string): string => new Redactor().redact(text).text;

const BODY = ['mLofjBUU2OLkz1o1JzGqyIka4nN3S5q2vB4/wSKKMW5WtORomacaRQ7uVHr0ftAT', 'f/50Lqde/97A9Hqy4pWS9otuNWs9oZb55vhK+odfIr66QxvERlmaFhcXNh7Ds2Go', '7xxUVYWb1H7P4vixi94XPFEIySuXqRvm8NoeOB+tya614uh4rw5AAefCiOHzR2Hh'];

describe('credential formats no rule knew', () => {
  it.each([
    ['xoxc-6369661878-7371522788147-3239844811335-f7c36dd48db191b6b4666f6042a04463c78d9b0878a47f38e90aa6ca4cf739ad', 'slack_token'],
    ['xoxe.xoxc-1-Mi0yLTYzNjk2NjE4NzgtNzM3MTUyMjc4ODE0Ny0zMjM5ODQ0ODExMzM1', 'slack_token'],
    ['xoxd-ksF7FPdzT3PzabAUt0y%2Fl3TAQhprrfp6rIkNrcUrWYPVHi%2Bsh0zUeeI4WAmYGIHHxtsWNe7UG4W%2BOPl%2BQuT0ShuhsrRIxBIfdXsokWbblU77nZ%3D%3D', 'slack_token'],
    ['eyAiYWxnIjogIkhTMjU2IiwgInR5cCI6ICJKV1QiIH0.eyAic3ViIjogInN2YyIsICJyb2xlIjogInNlcnZpY2Vfcm9sZSIgfQ.vyyDgRnFkR8Jknt85UdYnl9zaMZoCwN99oEz8GiplXd', 'jwt'],
    ['eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhTWFuMFo3WWhSSWFkQ3AzUGk4WVN1TWtYb01wMU1LQ2NTNXc1VU1KdiIsInNjb3BlIjoiYWxsIn0=.91pOqcvrBlzlb7STKCxHwq6nZBHLLHhaVwRqlLERgE4O2AC5paQ/x+9l6vyyDgRnFkR8Jknt85', 'jwt'],
    ['eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..gHCN-MohrneuqDpr.ca6obqDNX0dBmAj62fPU2qihZpwljdE7WN8kMXyjkVh0nyclxQSGX5gOA7VB2o.Zx8Kq2mP4vLw9RtYb3Nc5H', 'jwt'],
    ['8PzSwIBv5h3zaLJ50sF9XQ98t8urUT6HhJcbSpGqUkZFnZjYGZRmAZDO7LJpd9VHzFL6LZ3tDzEGmrXaM9Kx', 'azure_devops_token'],
    [`IQoJb3JpZ2luX2VjEs3XfAuPyCsq2Zel14tvXfsBIswnrqgdV6xxxTyv0bPO${'k3Xq9Lm2'.repeat(20)}=`, 'aws_session_token'],
    [`FwoGZXIvYXdzEBYaDH${'k3Xq9Lm2'.repeat(20)}`, 'aws_session_token'],
    ['CCIPRJ_oSn9qpK2rztUxLjOMw20Gd_b545ed66d22568f7c36dd48db191b6b4666f6042', 'circleci_token'],
    ['sess-jVaakT55mY2QCZY68BZXK3S7s9wcp3TwlmiF4uBo', 'openai_session_key'],
    ['K005pARRZNxdh0mrBibfpSe7Mg4lAno', 'backblaze_key'],
    ['sk_org_live_ckBkf0tIDV0Ljspou2gChHAGdNtAAEFjat0eqPEtKSGx4QEBS3dMan0Z7YhR', 'stripe_key'],
    ['ek_live_0H5O2thvh72XOFEIxSsWoRtk6NndNB8sxZ402tg3qv3AAdeChOGxR0GgYKYs', 'stripe_key'],
  ])('%s', (token, kind) => {
    expect(redact(`here: ${token} (from the export)`)).toBe(`here: [REDACTED:${kind}] (from the export)`);
    // Wherever the build keeps it: the user's words, a command, the agent's reply.
    const all = kept(user('u1', `export #general with ${token}`), bash('b1', `slackdump -t ${token} list`), result('b1', 'ok'), say('a1', `Using ${token}.`));
    expect(all).not.toContain(token.slice(0, 24));
  });

  it('keeps what only looks like them: placeholders, a 52-character id with no signature, base64 of JSON', () => {
    for (const t of ['xoxc-<YOUR_TOKEN>', 'xoxc-...', 'xoxd-your-cookie-here', 'eyAiYSI6IDF9', 'ewogICJuYW1lIjogImFwcCIKfQ==', `${'k3Xq9Lm2'.repeat(6)}AB12AZDX${'k3Xq9Lm2'.repeat(3)}abcd`, 'IQoJb3JpZ2luX2V', 'sess-abcdefghijklmnopqrstuvwxyzabcdefghijklmn', 'K001ABCDEFGHIJKLMNOPQRSTUVWXYZA']) {
      expect(redact(`see ${t} here`)).toBe(`see ${t} here`);
    }
  });
});

describe('a private key given as a list of its lines on one line', () => {
  it.each([
    ['printf arguments', `printf '%s\\n' '-----BEGIN RSA PRIVATE KEY-----' '${BODY.join("' '")}' '-----END RSA PRIVATE KEY-----' > k.pem`],
    ['a JSON list', `["-----BEGIN RSA PRIVATE KEY-----", "${BODY.join('", "')}", "-----END RSA PRIVATE KEY-----"]`],
    ['a Python list', `['-----BEGIN PRIVATE KEY-----', '${BODY.join("', '")}', '-----END PRIVATE KEY-----']`],
    ['a list cut before its END', `['-----BEGIN OPENSSH PRIVATE KEY-----', '${BODY.join("', '")}'`],
    ['lines joined by pipes', `-----BEGIN RSA PRIVATE KEY-----|${BODY.join('|')}|-----END RSA PRIVATE KEY-----`],
    ['an HTML page', `<pre>-----BEGIN RSA PRIVATE KEY-----<br>${BODY.join('<br>')}<br>-----END RSA PRIVATE KEY-----</pre>`],
  ])('%s', (_, text) => {
    const out = redact(text);
    for (const line of BODY) expect(out).not.toContain(line.slice(0, 16));
    expect(out).toContain('[REDACTED:private_key]');
  });

  it('keeps a public key or a certificate given so', () => {
    for (const label of ['PUBLIC KEY', 'CERTIFICATE', 'RSA PUBLIC KEY']) {
      const text = `['-----BEGIN ${label}-----', '${BODY.join("', '")}', '-----END ${label}-----']`;
      expect(redact(text)).toBe(text);
    }
  });
});
