import { describe, expect, it } from 'vitest';
import { keepsEach, kept, removesEach } from './redaction-cases.js';

/**
 * The fourteenth red team (docs/SECURITY.md): a credential split by a character a reader does
 * not see (an invisible format character, a Markdown marker), and code the labels' rules took
 * for values. Every value is made up.
 */

const AKIA = 'AKIAQ3EGQ5ZK7WNBXR2M';
const GHP = 'ghp_Ab3dEf6hIj9kLmNo2pQr5sTu8vWx1yZa4bCd';
const ANT = 'sk-ant-api03-QAbzqbPQs2vJypjuYp8zZFl0hxf9yGTymc1gwSi07uggcT1zZjpkhnq38pRizsskfhfvRauBL3FFzjIIiBRX0HS9sIk5j-lJs5B4AA';
const XOXB = 'xoxb-252973979358-9356879529218-zMBiCdkws8xr1dKd4vP2PcGU';
const split = (v: string, at: number, mark: string): string => `${v.slice(0, at)}${mark}${v.slice(at)}`;

describe('a credential split by a character no reader sees', () => {
  const marks: [string, string][] = [
    ['a zero-width non-joiner', '\u200c'],
    ['a zero-width joiner', '\u200d'],
    ['a left-to-right mark', '\u200e'],
    ['a right-to-left mark', '\u200f'],
    ['an Arabic letter mark', '\u061c'],
    ['an invisible times', '\u2062'],
    ['a variation selector', '\ufe0f'],
    ['a tag character', '\u{e0041}'],
    ['a Hangul filler', '\u3164'],
  ];
  removesEach(marks.map(([what, mark]) => [`a GitHub token with ${what} inside`, `Found it in commit a1b2c3d: ${split(GHP, 14, mark)}`, GHP.slice(14)] as const));
  removesEach([
    ['a Slack token with a right-to-left mark after a dash', `the old bot: ${split(XOXB, 18, '\u200f')}`, XOXB.slice(18)],
    ['an AWS key id with its prefix in bold', `Next steps: deactivate **AKIA**${AKIA.slice(4)} in IAM`, AKIA.slice(4)],
    ['an AWS key id with its prefix in code', `## Rotate \`AKIA\`${AKIA.slice(4)}`, AKIA.slice(4)],
    ['an Anthropic key with its prefix in bold', `Next steps: revoke **sk-ant-api03**${ANT.slice(12)} in the console`, ANT.slice(20)],
  ]);
  keepsEach([
    ['a family emoji (zero-width joiners between pictographs)', 'The team 👨‍👩‍👧 shipped it ❤️'],
    ['Persian text with a zero-width non-joiner', 'می‌خواهم این را بسازم'],
    ['bold words and code spans in prose', 'Run **`npm test`** then `git push` and check **CI**'],
    ['multiplication and a glob', 'const area = width*height; // src/**/*.ts'],
    ["Bundler's host variable (`__` is a dot there)", 'BUNDLE_GEMS__CONTRIBSYS__COM: "${GEMS_TOKEN}"'],
  ]);
  it('cuts the marks inside the credential with it, and nothing around it', () => {
    expect(kept(`deactivate **AKIA**${AKIA.slice(4)} today`)).toBe('deactivate **[REDACTED:aws_access_key_id] today');
  });
});

describe('code the labels took for a value', () => {
  keepsEach([
    ["TypeScript's non-null assertion on an environment variable", 'const apiKey = process.env.OPENAI_API_KEY!;'],
    ['a non-null assertion in an object literal', '  secret: process.env.NEXTAUTH_SECRET!,'],
    ['a non-null assertion on a member', 'const token = session.accessToken!;'],
    ['optional chaining', 'const token = session?.access_token;'],
    ['a GraphQL schema', '  login(email: String!, password: String!): AuthPayload'],
    ['a GraphQL operation', 'mutation Login($email: String!, $password: String!) { login(password: $password) { token } }'],
    ["Laravel's validation rules", "    'password' => 'required|string|min:8|confirmed',"],
    ['a Go struct tag', '  Password string `json:"password" validate:"required,min=8"`'],
    ["a generator's keyword argument", 'password = generate_password(length=20)'],
    ["a Kubernetes Secret's name", '      secret: shop-db-credentials'],
  ]);
  removesEach([
    ['a password ending in an exclamation mark', 'the admin password is Kestrel-42!', 'Kestrel-42!'],
    ['a quoted password after a GraphQL-like label', 'password: "Summer2024!db"', 'Summer2024!db'],
  ]);
});
