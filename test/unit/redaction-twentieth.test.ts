import { describe } from 'vitest';
import { keepsEach, removesEach } from './redaction-cases.js';

/**
 * Shapes the nineteenth red team left listed that were kept only once the text was a JSON
 * string's content (a Codex call's arguments, a tool result printed as JSON, a transcript line
 * read whole): a `name: value` whose value ends the string (the closing quote is the end of its
 * line), and a shell command continued with a backslash, whose `\` and line break are then
 * `\\\n`. Every value is made up.
 */

const PW = 'hvqzmkxrtwplen';
const K = 'VRTd2zcnmaIMnDekRtemAY';
const json = (text: string): string => JSON.stringify({ output: text });
const twice = (text: string): string => JSON.stringify({ arguments: json(text) });

describe('a credential inside a JSON string', () => {
  removesEach([
    ['a YAML password of letters ending the string', json(`mail:\n  smtp_password: ${PW}`), PW],
    ['a password of letters alone in the string', json(`password: ${PW}`), PW],
    ['a password ending the string, another key after it', `{"output":"password: ${PW}", "exit_code": 0}`, PW],
    ['a password ending a string in an array', `["password: ${PW}"]`, PW],
    ['a kubeconfig token ending the string', json('users:\n- name: kubeadmin\n  user:\n    token: awyss8.almw54ivwb64s2f1'), 'awyss8.almw54ivwb64s2f1'],
    ['docker login continued over lines', json(`$ docker login registry.acme.io \\\n    -u ci-bot \\\n    -p ${K}\nLogin Succeeded`), K],
    ['docker login continued over lines, escaped twice', twice(`docker login registry.acme.io \\\n  -u ci-bot \\\n  -p ${K}`), K],
    ['curl -u continued on the next line', json(`curl -X POST https://api.example.com/v1/messages \\\n    -u AC50e6b2c2db68374ac620829a3d35c38d:${K}`), K],
    ['a bearer token continued on the next line', json(`curl -H "Authorization: Bearer HUlG0GIa7L2TPVuPpX5n\\\nbQ9j507JEhUbwK8yz1NH" https://api.internal/v2/me`), 'bQ9j507JEhUbwK8yz1NH'],
    ['an assignment continued on the next line', json(`SERVICE_TOKEN="uB4LiNXsFV202fBE30xhe5yeBCaSXF7LKTehIAlo\\\nfGfucrH35hFc9us8CEFqjACs5PKAqMyM25zR9ybd"`), 'fGfucrH35hFc9us8CEFqjACs5PKAqMyM25zR9ybd'],
  ]);
});

describe('a credential split by terminal colours written as escapes, or a password that starts with $', () => {
  const ESC = '\u001b';
  removesEach([
    ['a token split by colours, in a JSON string', json(`${ESC}[1;33mwarning:${ESC}[0m token ${ESC}[31mghp_${ESC}[0m${ESC}[31mwyhnCBZcAea8A04foiLG4X5h2wcn0UORxj4Y${ESC}[0m has scope repo`), 'wyhnCBZcAea8A04foiLG4X5h2wcn0UORxj4Y'],
    ['a name split by bold, in a JSON string', json(`${ESC}[1mDB_PASS${ESC}[0m${ESC}[1mWORD${ESC}[0m=oOMjr3M38MAZeX`), 'oOMjr3M38MAZeX'],
    ['a key whose prefix is coloured apart, in a JSON string', json(`${ESC}[35msk-${ESC}[39mproj-cQI1QAnNpRTRXDN9QY8EAo2hoDllf6PMbKCc7eqouvHPgnwI_Wsl2JmPmwalFVX1XsuoQT3BlbkFJkDB1bSBegeK0SX6B9HfL`), 'cQI1QAnNpRTRXDN9QY8EAo2hoDllf6PMbKCc7eqouvHPgnwI_Wsl2JmPmwalFVX1XsuoQT3BlbkFJkDB1bSBegeK0SX6B9HfL'],
    ['a YAML password that starts with $', 'redis:\n  host: cache.internal\n  password: $Xq8Lm3Wz9Rk', '$Xq8Lm3Wz9Rk'],
  ]);
  keepsEach([
    ['coloured words in a JSON string', json(`${ESC}[32mPASS${ESC}[0m src/a.test.ts (3 tests)`)],
    ['a variable as a YAML password', 'redis:\n  password: $REDIS_PASSWORD'],
    ['a camel-case variable as a password', 'password: $dbPassword'],
  ]);
});

describe('ordinary JSON strings near those shapes', () => {
  keepsEach([
    ['a quoted label in a call', 'throw new Error("password: required")'],
    ['a state a message reports', '{"msg":"token: expired"}'],
    ['a state ending its line', 'token: invalid'],
    ['a missing password reported', '{"error":"password: missing", "code": 401}'],
    ['a label in prose, quoted mid-sentence', 'say "password: hunter" to the guard'],
    ['a Swift call with labels, in a JSON string', '{"a":"f(password: pw, user: u)"}'],
    ['a schema type ending the string', '{"help":"password: string"}'],
    ['a line break escaped alone, then a flag', json('docker ps \n  -a')],
    ['a Windows path before an n', '{"path":"C:\\\\\\new\\\\notes"}'],
  ]);
});
