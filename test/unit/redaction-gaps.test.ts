import { describe, expect, it } from 'vitest';
import { cutBeforeRedaction, headEnd, tailStart } from '../../src/core/cut.js';
import { stripControls } from '../../src/core/control-chars.js';
import { Redactor } from '../../src/core/redact.js';

/**
 * Credentials a red-team reading found kept, each as it was written, and the look-alikes that
 * must stay. Every value here is made up.
 */

const r = new Redactor();
/** Made-up key body lines (base64 of key width). */
const KEY_LINE = 'MHcCAQEEIOmPoUxMDLQm+g9mt3peWRIZ2l6p7VKyjXCeEcBimFpPoAoGCCqGSM49';
const KEY_LINE2 = 'AwEHoUQDQgAEq1Lk7Zr8Xw3Vb6Nm9Qp2Ts5Yh8Jd1Gf4Kc7Lx0Pz3Rv6Wb9Mn2Qe';
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
    ['an AWS key after a shown colour', 'key: ^[[32mAKIAZ7QW3R5T2Y9U4P6M^[[0m', 'Z7QW3R5T2Y9U4P6M'],
    ['a GitHub token with a suffix', 'cp ghp_Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N_bak backup', 'Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N'],
    ['a token split by a zero-width space', 'export T=ghp_Ab1Cd2Ef3Gh4Ij5Kl6\u200bMn7Op8Qr9St0Uv1Wx2Yz', 'Mn7Op8Qr9St0'],
    // Third round.
    ['a private key read with line numbers (Read)', `     1\u2192-----BEGIN EC PRIVATE KEY-----\n     2\u2192${KEY_LINE}\n     3\u2192${KEY_LINE2}\n     4\u2192-----END EC PRIVATE KEY-----`, KEY_LINE.slice(8, 40)],
    ['a private key read with line numbers (cat -n)', `     1\t-----BEGIN OPENSSH PRIVATE KEY-----\n     2\t${KEY_LINE}\n     3\t${KEY_LINE2}\n     4\t-----END OPENSSH PRIVATE KEY-----`, KEY_LINE2.slice(8, 40)],
    ['a name/value pair read with line numbers', '    31\u2192        - name: DB_PASSWORD\n    32\u2192          value: Wn4Tq8Zr2Lx6Vb9Mk3Pd7Hs5', 'Wn4Tq8Zr2Lx6Vb9Mk3Pd7Hs5'],
    ['a name/value pair in a diff', '+        - name: STRIPE_API_KEY\n+          value: Jc8Rv3Nq6Xz1Lm4Tb7Wk2Pf9', 'Jc8Rv3Nq6Xz1Lm4Tb7Wk2Pf9'],
    ['a name/value pair in grep -A', 'k8s/a.yaml:14:        - name: API_TOKEN\nk8s/a.yaml-15-          value: Gh5Ks9Tq2Vn7Lx3Zr8Mb4Wd6', 'Gh5Ks9Tq2Vn7Lx3Zr8Mb4Wd6'],
    ["a kubeconfig's client key", `client-key-data: ${Buffer.from(`-----BEGIN EC PRIVATE KEY-----\n${KEY_LINE}\n-----END EC PRIVATE KEY-----\n`).toString('base64')}`, Buffer.from(`-----BEGIN EC PRIVATE KEY-----\n${KEY_LINE}`).toString('base64').slice(40, 80)],
    ['an SSM parameter', '{"Name": "/prod/db/password", "Type": "SecureString", "Value": "Rf6Yh1Tn8Kq3Wz5Lx9Vb2Mc7", "Version": 3}', 'Rf6Yh1Tn8Kq3Wz5Lx9Vb2Mc7'],
    ["Secrets Manager's secret string", '"SecretString": "Pz3Lq7Xv1Nr5Tk9Wb2Hm6Jd4"', 'Pz3Lq7Xv1Nr5Tk9Wb2Hm6Jd4'],
    ["sshpass's variable", 'SSHPASS=Gh5Ks9Tq2Vn7Lx3Zr8Mb4Wd6 sshpass -e ssh host', 'Gh5Ks9Tq2Vn7Lx3Zr8Mb4Wd6'],
    ['a personal access token', 'AZURE_DEVOPS_EXT_PAT=q3vx7k2mplz5nwr8tyh4jd6fbc9gse2aku7xw3qm5np8rtz4vylb', 'q3vx7k2mplz5nwr8tyh4jd6fbc9gse2aku7xw3qm5np8rtz4vylb'],
    ["wpa_supplicant's key", 'psk="Hx2Lm7Qw4Zs9Np3Rv6Tk8Yb1"', 'Hx2Lm7Qw4Zs9Np3Rv6Tk8Yb1'],
    ['a private key of one word', 'PRIVKEY=3f8a1c9e7b2d4f6a0c5e8b1d3f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a', '3f8a1c9e7b2d4f6a0c5e8b1d3f7a9c2e'],
    ['a secret piped to wrangler', 'echo "Tn3Wq8Lz5Xv2Kr9Mb6Hp1Jd4" | npx wrangler secret put STRIPE_API_KEY', 'Tn3Wq8Lz5Xv2Kr9Mb6Hp1Jd4'],
    ["printf's format before the secret", "printf '%s' 'Yc7Ks2Vn9Lq4Xz1Rb8Tm5Wf3' | vercel env add DATABASE_PASSWORD production", 'Yc7Ks2Vn9Lq4Xz1Rb8Tm5Wf3'],
    ['a token from a process substitution', 'gh auth login --with-token < <(echo Fs4Lp9Xk2Vq7Nz3Rt8Wb5Hm1)', 'Fs4Lp9Xk2Vq7Nz3Rt8Wb5Hm1'],
    ['curl --proxy-user', 'curl --proxy-user deploy:Ka2Lq9Xv4Nz7Rt1Wb6Hm3Jd8 -x http://proxy:3128 https://x', 'Ka2Lq9Xv4Nz7Rt1Wb6Hm3Jd8'],
    ['psexec -p', 'psexec \\\\build01 -u Administrator -p Lb3Mr8Yw5Pz2Su7Xc4Kn9Fe1 cmd /c ipconfig', 'Lb3Mr8Yw5Pz2Su7Xc4Kn9Fe1'],
    ['evil-winrm -p', 'evil-winrm -i 10.0.0.9 -u Administrator -p Mc4Ns9Zx6Qa3Tv8Yd5Lo2Gf7', 'Mc4Ns9Zx6Qa3Tv8Yd5Lo2Gf7'],
    ['xfreerdp /p:', 'xfreerdp /v:10.0.0.9 /u:Administrator /p:Nd5Ot1Ay7Rb4Uw9Ze6Mp3Hg8', 'Nd5Ot1Ay7Rb4Uw9Ze6Mp3Hg8'],
    ['mosquitto_pub -P', 'mosquitto_pub -h mqtt.local -u sensor -P Oe6Pu2Bz8Sc5Vx1Af7Nq4Ih9 -t t -m 1', 'Oe6Pu2Bz8Sc5Vx1Af7Nq4Ih9'],
    ['a NuGet source password', 'dotnet nuget add source https://x/index.json -n acme -u me -p Pf7Qv3Ca9Td6Wy2Bg8Or5Ji1 --store-password-in-clear-text', 'Pf7Qv3Ca9Td6Wy2Bg8Or5Ji1'],
    ['rabbitmqctl add_user', 'rabbitmqctl add_user app Qg8Rw4Db1Ue7Xz3Ch9Ps6Kj2', 'Qg8Rw4Db1Ue7Xz3Ch9Ps6Kj2'],
    ['net user /add', 'net user svc_backup Rh9Sx5Ec2Vf8Ya4Di1Qt7Lk3 /add', 'Rh9Sx5Ec2Vf8Ya4Di1Qt7Lk3'],
    ['redis AUTH with a user', 'redis-cli -h cache AUTH default Si1Ty6Fd3Wg9Zb5Ej2Ru8Ml4', 'Si1Ty6Fd3Wg9Zb5Ej2Ru8Ml4'],
    ["poetry's repository password", 'poetry config http-basic.private me Tj2Uz7Ge4Xh1Ac6Fk3Sv9Nm5', 'Tj2Uz7Ge4Xh1Ac6Fk3Sv9Nm5'],
    ["poetry's PyPI token", 'poetry config pypi-token.pypi Uk3Va8Hf5Yi2Bd7Gl4Tw1On6', 'Uk3Va8Hf5Yi2Bd7Gl4Tw1On6'],
    ['cargo login', 'cargo login Vl4Wb9Ig6Zj3Ce8Hm5Ux2Po7', 'Vl4Wb9Ig6Zj3Ce8Hm5Ux2Po7'],
    ['MySQL IDENTIFIED BY', "CREATE USER 'app'@'%' IDENTIFIED BY 'Xa5Kq2Lz8Vn3Rt7Wb1Hm4Jd9';", 'Xa5Kq2Lz8Vn3Rt7Wb1Hm4Jd9'],
    ['Oracle IDENTIFIED BY', 'ALTER USER system IDENTIFIED BY Yb6Lr3Ma9Wo4Su8Xc2In5Ke1;', 'Yb6Lr3Ma9Wo4Su8Xc2In5Ke1'],
    ["PHP's print_r", 'Array\n(\n    [host] => smtp.example.com\n    [password] => Zc7Ms4Nb1Xp5Tv9Yd3Jo6Lf2\n)', 'Zc7Ms4Nb1Xp5Tv9Yd3Jo6Lf2'],
    ["PHP's var_dump", 'array(2) {\n  ["password"]=>\n  string(24) "Ad8Nt5Oc2Yq6Uw1Ze4Kp7Mg3"\n}', 'Ad8Nt5Oc2Yq6Uw1Ze4Kp7Mg3'],
    ['JSON in an HTML attribute', '<div data-page="{&quot;props&quot;:{&quot;stripeSecret&quot;:&quot;Be9Ou6Pd3Zr7Vx2Af5Lq8Nh4&quot;}}">', 'Be9Ou6Pd3Zr7Vx2Af5Lq8Nh4'],
    ['a name/value record the other way round', '{"value": "Hq2Wd8Kz4Lm6Np1Rs3", "name": "DB_PASSWORD"}', 'Hq2Wd8Kz4Lm6Np1Rs3'],
    ["requests' HTTPBasicAuth", "requests.get(url, auth=HTTPBasicAuth('me', 'Vk5Xn2Qw8Lp4Zr7Ty'))", 'Vk5Xn2Qw8Lp4Zr7Ty'],
    ["requests' auth tuple", 'requests.get(url, auth=("me", "Bm3Kd9Xs1Qp7Lw5Zr"))', 'Bm3Kd9Xs1Qp7Lw5Zr'],
    ['JSON in an HTML attribute, numeric references', '<div data-config="{&#34;apiKey&#34;:&#34;Cf1Pv7Qe4As8Wy3Bg6Mr9Oi5&#34;}">', 'Cf1Pv7Qe4As8Wy3Bg6Mr9Oi5'],
  ];
  // Providers added in the third round (made-up bodies of the documented shapes).
  const H40 = '3f9a1c7e5b2d8f4a9e1c3b5d7f2a4c6e8b0d1f3a';
  const B = 'Qw8Er4Ty2Ui6Op0AsDf3Gh7Jk1Lz5Xc9Vb2Nm6Mn4Bv8Cx0Za7Sd1Fg5Hj9Kl3Pq6Wo2Ei8Ru4Ty0Yp6Ua3Sb7Dc1Ve5Wf9Xg2';
  const providers: [string, string][] = [
    ['a Supabase access token', `sbp_${H40}`],
    ['a Supabase secret key', `sb_secret_${B.slice(0, 31)}`],
    ['a Replicate token', `r8_${B.slice(0, 37)}`],
    ['a Groq key', `gsk_${B.slice(0, 52)}`],
    ['an xAI key', `xai-${B.slice(0, 80)}`],
    ['an OpenRouter key', `sk-or-v1-${H40}${H40.slice(0, 24)}`],
    ['a DeepSeek key', `sk-${H40.slice(0, 32)}`],
    ['a Figma token', `figd_${B.slice(0, 40)}`],
    ['a Tavily key', `tvly-dev-${B.slice(0, 32)}`],
    ['a Pinecone key', `pcsk_${B.slice(0, 70)}`],
    ['a LangSmith key', `lsv2_pt_${H40.slice(0, 32)}_${H40.slice(0, 10)}`],
    ['an NVIDIA key', `nvapi-${B.slice(0, 64)}`],
    ['a Resend key', `re_${B.slice(0, 8)}_${B.slice(8, 32)}`],
    ['a Netlify token', `nfp_${B.slice(0, 36)}`],
    ['a Docker Hub token', `dckr_pat_${B.slice(0, 27)}`],
    ['a PostHog personal key', `phx_${B.slice(0, 43)}`],
    ['a Render key', `rnd_${B.slice(0, 32)}`],
    ['a Neon key', `napi_${'k3v9x2m7q1w8z4r6t0y5u3i8o2p7a1s6d4f9g3h5j2l8c0b7n1e6'.slice(0, 52)}${'abcd1234efgh'}`],
    ['a Contentful token', `CFPAT-${B.slice(0, 43)}`],
    ['a Bitbucket app password', `ATBB${B.slice(0, 32)}`],
  ];
  for (const [what, token] of providers) cases.push([what, `export X=1; ${token} done`, token.slice(-16)]);
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
    ['a certificate encoded whole', `ca-data: ${Buffer.from(`-----BEGIN CERTIFICATE-----\n${KEY_LINE}\n-----END CERTIFICATE-----\n`).toString('base64')}`],
    ['a path of numbered lines', '     1\u2192import { a } from "./a";\n     2\u2192const path = "/etc/app";'],
    ['a word after AUTH in prose', 'Fixed the AUTH flow broken'],
    ['"identified by" in prose', 'This endpoint returns the proof for one update, identified by its unique messageId.'],
    ['a variable after a token', 'curl -H "Authorization: Bearer $COPILOT_PAT" "$COPILOT_API_BASE/clusters/v1-c8e2f9a7b3d1"'],
    ['a user removed with net user', 'net user svc_backup /delete'],
    ['a pattern variable', 'const pat = /abc/; PATH=/usr/bin'],
    ['an ampersand in a command', 'make && echo "a &amp b" && curl "x?a=1&b=2"'],
    ['a name/value record of no secret the other way round', '{"value": "Hq2Wd8Kz4Lm6Np1Rs3", "name": "BUILD_ID"}'],
    ['an auth tuple of variables', 'requests.get(url, auth=(user, password))'],
    ['a Node-API call', 'napi_create_string_utf8(env, str, NAPI_AUTO_LENGTH, &result)'],
    ['a seed variable', 'rnd_seed = 42; re_compile_all_patterns(); sk-learn; tvly-search'],
    ['a store folder named after a key', 'built → /tmp/store-leak-01-numbered-private-key/projects/p/01010101-3333-4333-8333-333333333333/HANDOFF.md'],
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

  it('splits no run however long: a long URL is dropped whole, not kept past its scheme', () => {
    const blob = 'A'.repeat(5000);
    expect(headEnd(blob, 2000)).toBe(0);
    expect(tailStart(blob, 2000)).toBe(5000);
    const url = `https://deploy:Vq7Kx2Lp9Zr4Tw6Nm@hooks.example.com/alert?text=${'build%20failed%20'.repeat(150)}&sig=Qz8Xc4Vb2Nm6Lk0Jh3Gf7Ds1Ap5`;
    const out = `+ curl -s ${url}\n${'log line\n'.repeat(300)}`;
    const head = out.slice(0, headEnd(out, 2000));
    expect(head).toBe('+ curl -s ');
    const t = `${'log line\n'.repeat(300)}curl -s ${url} failed`;
    const tail = t.slice(tailStart(t, 2000));
    expect(tail).toBe(' failed');
    expect(cutBeforeRedaction('short', 80)).toBe('short');
    expect(cutBeforeRedaction(`export T=${token}`, 30)).toBe('export …');
    expect(cutBeforeRedaction(token, 20)).toBe('…');
  });
});

describe('a value nested deeper than any record', () => {
  it('is not shown, rather than shown unredacted', () => {
    let v: unknown = { password: 'ghp_Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N' };
    for (let i = 0; i < 100; i += 1) v = { v };
    expect(JSON.stringify(r.redactValue(v))).not.toContain('Wq3Er7Ty1Ui5Op9As3Df7Gh1Jk5Lz9Xc3Vb7N');
  });
});
