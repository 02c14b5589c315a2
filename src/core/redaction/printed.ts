import { nameStrength } from './names.js';
import { looksRandom } from './randomness.js';

/**
 * Commands whose output is a secret with nothing beside it that says so: `printenv DB_PASSWORD`
 * prints `Summer2024!#x`, and the redactor, which reads a tool's output apart from the command that
 * printed it, sees a word. The call is read when it is made; what its result prints is then
 * remembered as a secret (src/core/ingest.ts), and masked there and wherever it comes again.
 */

/**
 * A file's name that says it holds a secret (`secrets/db_password.txt`, `~/.vault-token`,
 * `config/master.key`, `/run/secrets/db`): a word of its name, between separators, or a folder
 * named for secrets; never source code, a template or an example (`token.h`, `secrets.example`).
 */
const SECRET_FILE_WORD = /(?:^|[._-])(?:tokens?|secrets?|passw(?:or)?ds?|passwd|pwd|pw|credentials?|creds|apikey|api[_-]key|vault[_-](?:pass|token)|cookie)(?:$|[._-])/i;
const SECRET_FILE_NAME = /^(?:master\.key|\.pgpass|\.netrc|\.erlang\.cookie|keyfile|\.?htpasswd|shadow|gshadow)$/i;
const SECRET_FOLDER = /(?:^|[/\\])\.?secrets[/\\]/i;
const NOT_A_SECRET_FILE = /(?:^|[._-])(?:example|sample|template|dist|test|tests|spec|mock|fixture|stub|config|tokenizer)(?:$|[._-])/i;
/** Extensions a secret's file may have: none, or one that says what it holds. */
const SECRET_FILE_EXT = /^(?:txt|key|env|secret|secrets|token|pass|pw|pwd|cred|creds|credentials|cookie)$/i;

/** Programs and subcommands that print a secret alone, by words of their command line. */
const PRINTERS = [
  /\bwg\s+genkey\b/,
  /\bgcloud\s+auth\s+print-(?:access|identity)-token\b/,
  /\baz\s+account\s+get-access-token\b/,
  /\bdoctl\s+auth\s+token\b/,
  /\bfly(?:ctl)?\s+auth\s+token\b/,
  /\bheroku\s+(?:auth:token|config:get)\b/,
  /\baws\s+configure\s+get\s+\S*(?:secret|token|key)/i,
  /\bterraform\s+output\s+(?:-\S+\s+)*-raw\b/,
  /\bpulumi\s+config\s+get\b/,
  /\bdoppler\s+secrets\s+get\b/,
  /\bgpg\b[^\n|;&]*\s(?:-d|--decrypt)\b/,
  /\b(?:sops|age)\s+(?:-d|--decrypt)\b/,
  /\bansible-vault\s+(?:view|decrypt)\b/,
  /\bopenssl\s+(?:rand|enc\s[^\n|;&]*-d)\b/,
  /\bsecurity\s+find-(?:generic|internet)-password\b/,
  /\bop\s+(?:read|item\s+get)\b/,
  /\b(?:vault\s+(?:kv\s+)?(?:get|read)|bw\s+get|lpass\s+show|pass\s+show|gopass\s+show|chamber\s+read|secret-tool\s+lookup)\b/,
  /\bgh\s+auth\s+token\b/,
  /\bnpm\s+token\s+create\b/,
  /\bkubectl\b[^\n|;&]*jsonpath=[^\n]*\.data\b/,
  /\b(?:rails|rake)\s+secret\b/,
  /\bkey:generate\b/,
  /\b(?:token_urlsafe|token_hex|get_random_secret_key)\b/,
  /\bpwgen\b/,
  /\bbase64\s+(?:-d|--decode|-D)\b/,
  /\baws\s+ssm\s+get-parameters?\b[^\n]*--with-decryption\b/,
  /\baws\s+secretsmanager\s+get-secret-value\b/,
  /\bgcloud\s+secrets\s+versions\s+access\b/,
  /\baz\s+keyvault\s+secret\s+show\b/,
  /\baz\s+[^\n|;&]*\bkeys?\s+list\b|\baz\s+[^\n|;&]*\blist-keys\b/,
  /\bgit\s+config\b[^\n|;&]*\s\S*(?:token|password|secret)\b/i,
  /\binfisical\s+secrets\s+get\b/,
  /\bkubectl\s+view-secret\b/,
  /\bkubectl\b[^\n|;&]*go-template=[^\n]*\bbase64decode\b/,
  // `npx dotenv-cli -p DB_PASSWORD` prints one variable's value.
  /\bdotenv(?:-cli)?\b[^\n|;&]*\s-p\s+\S/,
  // A constant decoded and printed: `print(base64.b64decode('U3Vt…').decode())`, `console.log(atob('…'))`.
  /\b(?:print|console\.log)\([^\n]*\b(?:b64decode|atob)\(/,
  // The environment filtered, then each value cut from its name: `env | grep TOKEN | cut -d= -f2`.
  /\b(?:env|printenv|set|export\s+-p)\s*\|[^\n]*\|\s*(?:cut\s+-d\s*['"]?=|sed\s+['"]?s\/[^/]*=|awk\s+-F\s*['"]?=)/,
  // A value cut from an env file: `grep '^STRIPE' .env | cut -d= -f2`.
  /\.env(?!\.(?:example|sample|template|dist)\b)\S*\s*\|[^\n]*\b(?:cut\s+-d\s*['"]?=|sed\s+['"]?s\/[^/]*=|awk\s+-F\s*['"]?=)/,
];

/**
 * A variable whose name says it is a secret, printed: `printenv NAME`, `echo $NAME`, `echo
 * "${NAME}"`, `printf '%s' "$NAME"`, `echo %NAME%`, `$env:NAME` alone or written out,
 * `print(os.environ['NAME'])`, `console.log(process.env.NAME)`, `puts ENV['NAME']`. A command that
 * only uses one (`curl -H "Bearer $TOKEN" … | jq .id`, `PGPASSWORD=$DB_PASSWORD psql`) prints
 * something else.
 */
const REF = `(?:\\$env:|\\$\\{?|%|os\\.environ(?:\\.get)?\\(?\\[?\\s*\\\\?['"]|os\\.getenv\\(\\s*\\\\?['"]|process\\.env\\.|process\\.env\\[\\s*['"]|ENV\\[\\s*['"])`;
const VARIABLE = new RegExp(
  `(?:\\bprintenv\\s+|(?:^|[;&|("'\\s]\\s*|\\$\\(\\s*)(?:echo(?:\\s+-[neE]+)*|printf\\s+(?:'[^']*'|"[^"]*")|Write-(?:Output|Host)|print\\(|console\\.log\\(|puts|p)\\s*(?:\\\\?["']){0,3}\\s*${REF}|^\\s*["']?${REF}(?=[A-Za-z_][A-Za-z0-9_]*["']?\\s*$)|\\b(?:powershell|pwsh)(?:\\.exe)?\\s+(?:-\\w+\\s+)*-c(?:ommand)?\\s+["']?\\s*${REF}(?=[A-Za-z_][A-Za-z0-9_]*["']?\\s*$))([A-Za-z_][A-Za-z0-9_]{0,80})`,
  'gm',
);

/** `jq -r .password`, `yq '.db.password'`, `jq '.auth.token'`: a field whose name says it is a secret. */
const QUERY = /\b(?:jq|yq|gojq)\b[^|;&\n]*?['"]?\.([A-Za-z0-9_.[\]"-]{1,120})/g;

/** `cat secrets/db_password.txt`, `head -1 ~/.vault-token`, `Get-Content .\api-key.txt`. */
const SHOWS_FILE = /(?:^|[;&|(`'"]\s*|\$\(\s*|\bsudo\s+|\bexec(?:\s+-\S+)*\s+[\w.-]+\s+(?:--\s+)?)(?:cat|head|tail|less|more|bat|type|Get-Content|gc)\b((?:\s+-{1,2}[A-Za-z0-9-]+(?:[ =]\d+)?)*)\s+(?:<\s*)?['"]?([^\s'"|;&<>]+)/gm;

/** Whether a shell command prints a secret alone (its output is then read as one). */
export function printsSecret(command: string): boolean {
  if (command.length > 4000) return false;
  if (PRINTERS.some((p) => p.test(command))) return true;
  for (const m of command.matchAll(VARIABLE)) {
    // `echo "$REGISTRY_PASSWORD" | docker login --password-stdin` hands it on: it is not printed.
    const rest = command.slice((m.index ?? 0) + m[0].length);
    if (namesSecret(m[1] as string) && !/^[^;&\n]*\|(?!\|)/.test(rest)) return true;
  }
  for (const m of command.matchAll(QUERY)) if (namesSecret((m[1] as string).split(/[.[\]"]+/).filter((x) => x !== '').at(-1) ?? '')) return true;
  for (const m of command.matchAll(SHOWS_FILE)) if (readsSecretFile(m[2] as string)) return true;
  for (const m of command.matchAll(EXTRACTOR)) if (extractsSecret(m[1] as string, m[2] as string, command.slice((m.index ?? 0) + m[0].length))) return true;
  for (const m of command.matchAll(READ_INTO_PRINT)) if (readsSecretFile(m[1] ?? m[2] ?? m[3] ?? '')) return true;
  return false;
}

/**
 * Programs that print part of a file: `awk -F= '/^DB_PASSWORD/{print $2}' .env`, `sed -n 1p
 * secrets/token`, `cut -d= -f2 .env`, `grep -oP '(?<=KEY=).*' .env.local`, `tr -d '\n' <
 * ~/.vault-token`: what they print is the value alone, without the label the redactor reads.
 */
const EXTRACTOR = /(?:^|[;&|(`'"]\s*|\$\(\s*|\bsudo\s+)(awk|gawk|mawk|sed|cut|grep|egrep|rg|tr|strings|tac|nl|sort|xxd|od)\b([^|;&\n]*)/gm;
/** A value read from a file straight into a print: `echo "$(<secrets/token)"`, `print(open('secrets/key').read())`, `console.log(fs.readFileSync('…'))`. */
const READ_INTO_PRINT = /\b(?:echo|printf\s+(?:'[^']*'|"[^"]*"))\s+["']?\$\(\s*<\s*['"]?([^\s'")]+)|\bprint\(\s*open\(\s*\\?['"]([^'"\\]+)\\?['"][^)]*\)\.read(?:line)?\(\)|console\.log\(\s*(?:[\w$]+\.|require\(\s*\\?['"](?:node:)?fs\\?['"]\s*\)\.)?readFileSync\(\s*\\?['"]([^'"\\]+)/g;
/** A dotenv file: `.env`, `.env.local`, `config/.env.production`; not `.env.example`. */
const ENV_FILE = /^(?:.*[/\\])?\.env(?:\.(?!example|sample|template|dist|defaults?\b)[\w-]+)?$/i;
/** Programs a value may be piped through and still be printed (a filter, not a consumer). */
const FILTER = /^\s*\|\s*(?:head|tail|tr|cut|sed|awk|grep|xargs\s+echo|base64|sort|uniq|tee\s+\/dev\/(?:stdout|stderr))\b/;

/** Whether a program's words read a secret file, or cut values out of a dotenv file, and print what they get. */
function extractsSecret(program: string, args: string, rest: string): boolean {
  // Handed on to a consumer (`| docker login --password-stdin`), not printed.
  if (/^\s*\|(?!\|)/.test(rest) && !FILTER.test(rest)) return false;
  const words = args.match(/'[^']*'|"[^"]*"|<\s*\S+|\S+/g) ?? [];
  // grep's, sed's and awk's first word is a pattern or a script (`grep password src/`); tr's two
  // are sets of characters: their files are the words after (tr reads only what `<` gives it).
  let script = /^(?:grep|egrep|rg|sed|awk|gawk|mawk|tr)$/.test(program) ? (program === 'tr' ? 2 : 1) : 0;
  for (const raw of words) {
    const w = raw.replace(/^<\s*/, '').replace(/^['"]|['"]$/g, '');
    if (w === '' || w.startsWith('-')) continue;
    if (script > 0 && !raw.startsWith('<')) {
      script -= 1;
      continue;
    }
    if (readsSecretFile(w)) return true;
    // A dotenv file is read line by line, each a label and its value: only a program that cuts the
    // value out prints it bare (`grep DB_PASSWORD .env` prints the label beside it).
    if (ENV_FILE.test(w) && cutsValues(program, args)) return true;
  }
  return false;
}

function cutsValues(program: string, args: string): boolean {
  switch (program) {
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'cut':
      return true;
    case 'sed':
      return /\s-[a-zA-Z]*n\b/.test(args) || /\bs([/|#,])[^\n]*?=[^\n]*?\1\1/.test(args);
    case 'grep':
    case 'egrep':
    case 'rg':
      return /\s-[a-zA-Z]*o|--only-matching\b|\(\?<=|\\K/.test(args);
    default:
      return false;
  }
}

/** A here-document written into a file: `cat > secrets/api_key <<'EOF'` … `EOF`. */
const HEREDOC = /(?:>>?|\btee(?:\s+-a)?)\s*['"]?([^\s'"|;&<>]+)['"]?\s*<<-?\s*['"]?([A-Za-z_]+)['"]?[^\n]*\n([\s\S]{0,2000}?)\n\s*\2\b/g;

/** What a command writes into a file that holds a secret, from a here-document in it: the secret words of its body. */
export function writtenSecrets(command: string): string[] {
  if (command.length > 8000 || !command.includes('<<')) return [];
  const out: string[] = [];
  for (const m of command.matchAll(HEREDOC)) if (readsSecretFile(m[1] as string)) out.push(...printedSecrets(m[3] as string));
  return out;
}

/** Whether a file's path names a file that holds a secret (a read of it prints one). */
export function readsSecretFile(path: string): boolean {
  const p = path.replace(/[/\\]+$/, '');
  const name = p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
  if (name === '' || NOT_A_SECRET_FILE.test(name)) return false;
  if (SECRET_FILE_NAME.test(name)) return true;
  // `.vault-token`, `db_password.txt`, `api.key`, `/run/secrets/db`: not `token.h`, `password_reset.py`.
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  if (ext !== '' && !SECRET_FILE_EXT.test(ext)) return false;
  if (ext.toLowerCase() === 'key' || SECRET_FOLDER.test(p)) return true;
  return SECRET_FILE_WORD.test(name);
}

/** Output of more lines than this is a listing, not a secret printed alone: its labelled values are the redactor's. */
const MAX_LINES = 5;

/**
 * The words of a secret-printing command's output that are the secret: on an output of a few lines,
 * each word of 8 characters or more with a letter and a digit, or that looks generated. A line
 * number a read prefixes (`     1\t`) is no part of it.
 */
export function printedSecrets(output: string): string[] {
  const lines = output.split(/\r?\n/).map((l) => l.replace(/^\s*\d+[\t→]/, '').trim()).filter((l) => l !== '' && !HARNESS_LINE.test(l));
  if (lines.length === 0 || lines.length > MAX_LINES) return [];
  // A JSON document (a decoded token's claims, an API's answer) names its values: the redactor's.
  if (/^[{[]/.test(lines[0] as string)) return [];
  const out: string[] = [];
  for (const l of lines) {
    // The words a mask looks for (src/core/ingest.ts TYPED_WORD): quotes of any kind part them.
    for (const w of l.match(/[^\s'"`=:;,(){}[\]<>|&\\«»“”‘’]+/g) ?? []) {
      if (w.length < 8 || w.length > 400 || /^[a-z][a-z0-9+.-]*:\/\//i.test(w) || w.startsWith('/')) continue;
      // A region or a zone (`us-east-1`, `europe-west4-a`) is what `config:get REGION` prints.
      if (w.length <= 16 && /^[a-z]+(?:-[a-z]+){0,2}-?\d{1,2}(?:-[a-z])?$/.test(w)) continue;
      // A date or a time cut at its `:` (`2026-05-01T10`) is in every log line.
      if (/^\d{4}-\d{2}-\d{2}/.test(w)) continue;
      // A host or a file by its name (`db01.internal`, `secrets-v2.yaml`) is what a label's value
      // may be by mistake, and is named again and again after.
      if (/\.[a-z]{2,8}(?::\d{1,5})?$/i.test(w) && !/\d$/.test(w)) continue;
      if (secretWord(w)) out.push(w);
    }
  }
  return out;
}

/** What a secret word is here: a letter and a digit, or generated-looking (a mask checks a word with it before it hashes one). */
export const secretWord = (w: string): boolean => (/\d/.test(w) && /[A-Za-z]/.test(w)) || looksRandom(w, 8);

/**
 * Whether a variable's or a field's name says it holds a secret, as the redactor judges a label
 * (names.ts): `DB_PASSWORD`, `NPM_TOKEN`, `REDIS_AUTH`; not `SECRET_NAME`, `TOKEN_URL`,
 * `API_KEY_ID` or `tokenizer`, which say where or what a secret is.
 */
const namesSecret = (name: string): boolean => nameStrength(name) !== null;

/** The lines a harness writes around a command's output (Codex's exec session), which are no part of it. */
const HARNESS_LINE = /^(?:Chunk ID:|Wall time:|Process exited with code|Process running with session ID|Original token count:|Output:|Script completed|Script running|Exit code:)/;
