import { describe, expect, it } from 'vitest';
import { kept, keepsEach, removesEach } from './redaction-cases.js';

/**
 * The ninth red team (docs/SECURITY.md): Azure's key listings, make's conditional assignment, and
 * sign-in and publishing tools that take a token or a password as a flag. Every value is made up.
 */

const STORAGE = 'Xq3Zt7Vw9Ab2Cd4Ef6Gh8Ij0Kl1Mn3Op5Qr7St9Uv1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr3St5Uv7Wx9Yz1Ab3==';

describe("Azure's key listings", () => {
  it.each([
    ['az redis list-keys', '{\n  "primaryKey": "iH9mQz2vL8xR4nT6wY1pK3sD5fG7hJ0aB2cE4gI6k08=",\n  "secondaryKey": "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa98765432="\n}', ['iH9mQz2vL8xR4nT6wY1pK3sD5fG7hJ0aB2cE4gI6k08=', 'Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa98765432=']],
    ['az cognitiveservices account keys list', '{\n  "key1": "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",\n  "key2": "9e8f7a6b5c3f9a8b7c6d5e4f3a2b1c0d"\n}', ['3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c', '9e8f7a6b5c3f9a8b7c6d5e4f3a2b1c0d']],
    ['az storage account keys list', `[\n  {\n    "creationTime": "2026-01-02T10:00:00.000000+00:00",\n    "keyName": "key1",\n    "permissions": "FULL",\n    "value": "${STORAGE}"\n  }\n]`, [STORAGE]],
    ['the same as a table', `KeyName    Permissions    Value\n---------  -------------  ${'-'.repeat(88)}\nkey1       FULL           ${STORAGE}`, [STORAGE]],
    ['the storage key in the environment', `export AZURE_STORAGE_KEY=${STORAGE}`, [STORAGE]],
    ['az functionapp keys list', '{\n  "functionKeys": {\n    "default": "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK==",\n    "deploy": "Zq3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK=="\n  },\n  "systemKeys": {"durabletask_extension": "Yb3Zt7Vw9Ab2Cd4Ef6Gh8Ij0Kl1Mn3Op5Qr7St9Uv1Wx3Yz5Ab7Cd9Ef1G=="}\n}', ['aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK==', 'Zq3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK==', 'Yb3Zt7Vw9Ab2Cd4Ef6Gh8Ij0Kl1Mn3Op5Qr7St9Uv1Wx3Yz5Ab7Cd9Ef1G==']],
    ['as JSON text escapes it, in a tool result', JSON.stringify({ stdout: `{\n  "primaryKey": "iH9mQz2vL8xR4nT6wY1pK3sD5fG7hJ0aB2cE4gI6k08="\n}` }), ['iH9mQz2vL8xR4nT6wY1pK3sD5fG7hJ0aB2cE4gI6k08=']],
  ])('%s', (_what, text, secrets) => {
    const out = kept(text);
    for (const s of secrets) expect(out).not.toContain(s);
  });

  keepsEach([
    ['a primary key that names a column', 'primaryKey: "id"'],
    ['a storage key that names a setting', "const STORAGE_KEY = 'app-theme'"],
    ['a numbered key of no secret', "key1 = 'first'"],
    ['a table whose rows hold words', 'key1       FULL           enabled'],
    ['a function key object of names', '"functionKeys": {"default": "default-function-key-name"}'],
  ]);
});

describe("C's #define of a secret", () => {
  it('removes the quoted literal, as it comes in a Write of a sketch, JSON text and all', () => {
    const content = '#define WIFI_SSID "AcmeGuest"\n#define WIFI_PASSWORD "tL8NcQKPv3IvVn9"\n#define API_KEY "fHXp7gXtbefb1t"\n';
    const out = kept(JSON.stringify({ file_path: '/w/firmware/secrets.h', content }));
    expect(out).not.toContain('tL8NcQKPv3IvVn9');
    expect(out).not.toContain('fHXp7gXtbefb1t');
    expect(out).toContain('AcmeGuest');
  });

  it('keeps a define of a length or a name', () => {
    expect(kept('#define PASSWORD_LEN 16\n#define TOKEN_HEADER "X-Token"')).toBe('#define PASSWORD_LEN 16\n#define TOKEN_HEADER "X-Token"');
  });
});

describe('a secret written into code', () => {
  removesEach([
    ['Basic credentials encoded in JavaScript', "headers: { Authorization: 'Basic ' + btoa('svc-deploy:1Lzdw41CoXFk') }", '1Lzdw41CoXFk'],
    ['the same in Python', "auth = base64.b64encode(b'admin:ytaeEztB1R0Elz').decode()", 'ytaeEztB1R0Elz'],
    ["an option's literal default (argparse)", "parser.add_argument('--api-key', default='OEksLxPMwnkH7KDZQE', help='API key')", 'OEksLxPMwnkH7KDZQE'],
    ["an option's literal default (click)", "@click.option('--token', default='ghx7Lq9Zt2Vw8Rk4Np', help='Token')", 'ghx7Lq9Zt2Vw8Rk4Np'],
    ["Rust's default for an unset variable", 'let key = env::var("OPENAI_API_KEY").unwrap_or("Hk8Lm2Qw9Zx4Tr7Vb3Np".to_string());', 'Hk8Lm2Qw9Zx4Tr7Vb3Np'],
  ]);

  keepsEach([
    ['a default from the environment', "parser.add_argument('--api-key', default=os.environ.get('API_KEY'))"],
    ['an empty default', "parser.add_argument('--api-key', default='')"],
    ['a flag whose default is a keyword', "parser.add_argument('--bypass', default='false')"],
    ['a port', "parser.add_argument('--port', default='8080')"],
    ["Rust's default of no secret", 'let region = env::var("AWS_REGION").unwrap_or("eu-west-1".to_string());'],
    ["Rust's default from a call", 'let key = env::var("API_KEY").unwrap_or(read_key_file());'],
  ]);
});

describe('a password a person made, named pw', () => {
  removesEach([
    ['in prose', 'The admin pw is !IQep94FGa2 for now', '!IQep94FGa2'],
    ['as a short label', 'pw Summer2024!x', 'Summer2024!x'],
  ]);

  keepsEach([
    ['a command after it', 'Run pwd && ls -la to see where you are'],
    ['a word of no digit', 'the pw is required'],
  ]);
});

describe("make's conditional assignment", () => {
  it('removes the value of `NAME ?= …` as of `NAME := …`', () => {
    expect(kept('DB_PASSWORD ?= T44DGp0Zx72nG4SAl8Ln\nDB_HOST ?= localhost')).toBe('DB_PASSWORD ?= [REDACTED:secret_assignment]\nDB_HOST ?= localhost');
  });
});

describe('a token or a password given to a tool as a flag', () => {
  removesEach([
    ['vsce publish -p', 'npx @vscode/vsce publish -p 7hq3kzt5yq2vxw8rjm4pl6nd9bc3fg5h7jk2mn4pq6rs8tv1wx3yza', '7hq3kzt5yq2vxw8rjm4pl6nd9bc3fg5h7jk2mn4pq6rs8tv1wx3yza'],
    ['dotnet nuget push -k', 'dotnet nuget push x.nupkg -k oy2ka7qzxr4tv8nm3pl6hd9bc2fg5jk7mn9pq1rs3tv5wx7 -s https://api.nuget.org/v3/index.json', 'oy2ka7qzxr4tv8nm3pl6hd9bc2fg5jk7mn9pq1rs3tv5wx7'],
    ["macOS's keychain", "security add-generic-password -a deploy -s acme-api -w 'Gr33n-Tiger!x9'", 'Gr33n-Tiger!x9'],
    ['expo login -p', 'npx expo login -u acme-dev -p Hunter2!plus', 'Hunter2!plus'],
    ["Bundler's credentials for a gem source", 'bundle config set --global gems.acme.io deploy:Xk9fQ2mZp7Lr4Tn8', 'Xk9fQ2mZp7Lr4Tn8'],
    ['codecov -t', 'codecov upload-process -t 4f8e2c1a-9b7d-4e3f-8a2b-1c9d7e5f3a1b -f coverage.xml', '4f8e2c1a-9b7d-4e3f-8a2b-1c9d7e5f3a1b'],
    ['snyk auth', 'npx snyk auth 9d3c7b1e-2f4a-4c8d-9e6b-5a1f3d7c9e2b', '9d3c7b1e-2f4a-4c8d-9e6b-5a1f3d7c9e2b'],
    ['doctl auth init -t', 'doctl auth init -t 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c', '3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c'],
  ]);

  keepsEach([
    ['a port', 'npm run build -- -p 3000'],
    ["a Bundler setting that holds none", 'bundle config set --local path vendor/bundle'],
    ['a keychain lookup', 'security find-generic-password -a deploy -s acme-api -w'],
    ['a codecov upload with no token', 'codecov upload-process -f coverage.xml --verbose'],
  ]);
});
