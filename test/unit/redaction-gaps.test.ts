import { describe, expect, it } from 'vitest';
import { cutBeforeRedaction, headEnd, tailStart } from '../../src/core/cut.js';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';

/**
 * Credentials a red-team reading found kept, each as it was written, and the look-alikes that
 * must stay. Every value here is made up.
 */

const r = new Redactor();
const kept = (text: string): string => r.redact(stripControls(text)).text;

describe('credentials the redactor now removes', () => {
  const cases: [string, string, string][] = [
    ['a subscript assignment', 'os.environ["API_TOKEN"] = "h8D1pEOxTXvryoQ5aB3k"', 'h8D1pEOxTXvryoQ5aB3k'],
    ["PHP's array", "$config['db_password'] = 'Tq9vLm2Xc8Rb4Nz1'", 'Tq9vLm2Xc8Rb4Nz1'],
    ['a TypeScript typed constant', 'const API_TOKEN: string = "Kw3Rt7Yp1Zx5Cv9Bn2Ma"', 'Kw3Rt7Yp1Zx5Cv9Bn2Ma'],
    ['a Go typed variable', 'var password string = "Gh5Jk8Lm2Np4Qr7"', 'Gh5Jk8Lm2Np4Qr7'],
    ['a name that ends in its stage', 'DB_PASSWORD_PROD=Ua7Vb3Wc9Xd1Ye5', 'Ua7Vb3Wc9Xd1Ye5'],
    ['a name that ends in its version', 'API_KEY_V2=Rf6Tg2Yh8Uj4Ik0Ol3', 'Rf6Tg2Yh8Uj4Ik0Ol3'],
    ['a name that ends in its access', 'GITHUB_TOKEN_RW=Pa1Sd5Fg9Hj3Kl7Zx', 'Pa1Sd5Fg9Hj3Kl7Zx'],
    ["Rails' secret key base", `SECRET_KEY_BASE=${'9f3a1c7e5b2d8f4a'.repeat(8)}`, '9f3a1c7e5b2d8f4a9f3a'],
    ['an aligned config line', 'password          = "Mz2Nx8Bc4Vq6Lw0"', 'Mz2Nx8Bc4Vq6Lw0'],
    ['a password of digits', 'DB_PASSWORD=53083854518852461234', '53083854518852461234'],
    ['a label with its environment in prose', 'the database password for prod is Pz8Mx2Qn6Wb0Er4Ty7Ui', 'Pz8Mx2Qn6Wb0Er4Ty7Ui'],
    ["Claude Code's answer to its own question", 'User has answered your questions: "What is the staging DB password?"="LN2hvc2xiuA0NcI8"', 'LN2hvc2xiuA0NcI8'],
    ['a GitHub token glued to a word', 'build 1ghp_Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N done', 'Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N'],
    ['a header with the key alone', 'curl -H "Authorization: dFIuxTPuNP808jZ7Kq2Lm5Nb8Vc1Xz4Wa7Sd0Fg3" https://api.example.com', 'dFIuxTPuNP808jZ7Kq2Lm5Nb8Vc1Xz4Wa7Sd0Fg3'],
    ["a repository secret's body", 'gh secret set DEPLOY_KEY --body g1gEZEXRBzm14PCWxK7q', 'g1gEZEXRBzm14PCWxK7q'],
    ['a token piped to gh auth login', 'echo Tz4Xc8Vb2Nm6Lk0Jh3 | gh auth login --with-token', 'Tz4Xc8Vb2Nm6Lk0Jh3'],
    ["az login's password", 'az login -u admin@example.com -p Qw8Er4Ty2Ui6Op0As', 'Qw8Er4Ty2Ui6Op0As'],
    ["twine's password", 'twine upload -u __token__ -p Zx3Cv7Bn1Mq5Wl9Ek dist/*', 'Zx3Cv7Bn1Mq5Wl9Ek'],
    ["ssh-keygen's passphrase", 'ssh-keygen -t ed25519 -N "Hy6Gt2Fr8De4Sw0Aq" -f key', 'Hy6Gt2Fr8De4Sw0Aq'],
    ["lftp's password", 'lftp -u deploy,Kj7Hg3Fd9Sa5Lp1Mo ftp.example.com', 'Kj7Hg3Fd9Sa5Lp1Mo'],
    ["sqlplus's password", 'sqlplus scott/Tg5Yh1Uj7Ik3Ol9Pm@orcl', 'Tg5Yh1Uj7Ik3Ol9Pm'],
    ['a vault token', 'vault login s.Rt6Yu2Io8Pa4Sd0Fg', 'Rt6Yu2Io8Pa4Sd0Fg'],
    ['a name of one word (PostgreSQL)', 'PGPASSWORD=Lq4Wz8Xc2Vb6Nm0Kj psql -h db', 'Lq4Wz8Xc2Vb6Nm0Kj'],
    ["Docker's identity token", '{"auths":{"registry.example.com":{"identitytoken":"Hb3Nj7Mk1Ol5Pa9Sd2Fg"}}}', 'Hb3Nj7Mk1Ol5Pa9Sd2Fg'],
    ['a webhook secret of one word', 'WEBHOOKSECRET=Ty8Ui4Op0As6Df2Gh', 'Ty8Ui4Op0As6Df2Gh'],
    ['a connection string password', 'Server=db;Database=app;Uid=sa;Pwd=Zx7Cv3Bn9Mq1We5Rt;', 'Zx7Cv3Bn9Mq1We5Rt'],
    ["PHP's define with punctuation", "define('DB_PASSWORD', 'p@ss!W0rd#2024$x');", 'p@ss!W0rd#2024$x'],
    ['openssl -k', 'openssl enc -aes-256-cbc -k Sd4Fg8Hj2Kl6Zx0Cv -in a -out b', 'Sd4Fg8Hj2Kl6Zx0Cv'],
    ['curl --oauth2-bearer', 'curl --oauth2-bearer Qa5Ws9Ed3Rf7Tg1Yh https://api.example.com', 'Qa5Ws9Ed3Rf7Tg1Yh'],
    ['a password piped to sudo -S', "echo 'Ik8Ol2Pa6Sd0Fg4Hj' | sudo -S apt install x", 'Ik8Ol2Pa6Sd0Fg4Hj'],
    ['a PowerShell secure string', '$pw = ConvertTo-SecureString "Mn3Bv7Cx1Za5Lk9Jh" -AsPlainText -Force', 'Mn3Bv7Cx1Za5Lk9Jh'],
    ['an AWS key after a shown colour', 'key: ^[[32mAKIAIOSFODNN7EXAMPLE^[[0m', 'IOSFODNN7EXAMPLE'],
    ['a GitHub token with a suffix', 'cp ghp_Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N_bak backup', 'Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N'],
    ['a token split by a zero-width space', 'export T=ghp_Ab1Cd2Ef3Gh4Ij5Kl6\u200bMn7Op8Qr9St0Uv1Wx2Yz', 'Mn7Op8Qr9St0'],
  ];
  for (const [what, text, secret] of cases) {
    it(`removes ${what}`, () => {
      expect(kept(text)).not.toContain(secret);
    });
  }
});

describe('look-alikes that stay', () => {
  const cases: [string, string][] = [
    ['a length', 'password_length = 12'],
    ['a typed URL', 'const API_URL: string = "https://api.example.com/v2"'],
    ['a header naming its variable', 'headers.Authorization = process.env.GITHUB_TOKEN_VALUE_NAME'],
    ['a port of a production database', 'DB_PORT_PROD=5432'],
    ['a test vector of digits', '"private_key_hex": "0808080808080808080808080808080808080808080808080808080808080808"'],
    ['a secret listed without its body', 'gh secret set DEPLOY_KEY < key.txt'],
    ['a comparison', 'if password == "Xq8Lw2Nz5Rt9Vb3Mk7Pd" then'],
    ['a key made without a passphrase', "ssh-keygen -t ed25519 -N '' -f key"],
    ['a vault login by method', 'vault login -method=oidc role=dev'],
    ['the shell\'s working folder', 'PWD=/home/dev/project/src'],
    ["a container's working folder", 'PWD=/app'],
    ['a bypass flag', 'bypass=true'],
    ['a compass heading', 'compass: northwest'],
    ["getenv's default of a variable name", 'os.getenv("DB_PASSWORD", DEFAULT)'],
  ];
  for (const [what, text] of cases) {
    it(`keeps ${what}`, () => {
      expect(kept(text)).toBe(text);
    });
  }
});

describe('a cut before the redactor reads the text', () => {
  const token = 'ghp_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y';

  it('never splits a word: the head ends before it, the tail starts after it', () => {
    const text = `${'a '.repeat(995)}${token} ${'b '.repeat(1000)}`;
    const head = text.slice(0, headEnd(text, 2000));
    expect(head.endsWith(' ')).toBe(true);
    expect(head).not.toContain('ghp_');
    const t = `${'a '.repeat(1000)}${token} ${'b '.repeat(980)}`;
    const tail = t.slice(tailStart(t, 2000));
    expect(tail).not.toContain('ghp_');
    expect(tail.length).toBeLessThanOrEqual(2000);
  });

  it('cuts where asked in a run longer than any credential, and leaves short texts whole', () => {
    const blob = 'A'.repeat(5000);
    expect(headEnd(blob, 2000)).toBe(2000);
    expect(tailStart(blob, 2000)).toBe(3000);
    expect(cutBeforeRedaction('short', 80)).toBe('short');
    expect(cutBeforeRedaction(`export T=${token}`, 30)).toBe('export …');
    expect(cutBeforeRedaction(token, 20)).toBe('…');
  });
});
