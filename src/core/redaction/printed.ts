import { looksRandom } from './randomness.js';

/**
 * Commands whose output is a secret with nothing beside it that says so: `printenv DB_PASSWORD`
 * prints `Summer2024!#x`, and the redactor, which reads a tool's output apart from the command that
 * printed it, sees a word. The call is read when it is made; what its result prints is then
 * remembered as a secret (src/core/ingest.ts), and masked there and wherever it comes again.
 */

/** A variable's or a field's name that says it holds a secret. */
const SECRET_NAME = /(?:token|secret|passw(?:or)?d|passwd|pwd|passphrase|api[_-]?key|apikey|private[_-]?key|credential|_key\b|_pass\b|^pass$|mnemonic)/i;

/** A file's name that says it holds a secret: `secrets/db_password.txt`, `~/.vault-token`, `config/master.key`. */
const SECRET_FILE = /(?:^|[/\\])(?:[^/\\\s]*(?:token|secret|passw(?:or)?d|passwd|credential|api[_-]?key|apikey|vault[_-]?pass)[^/\\\s]*|master\.key|\.vault[_-]token|\.pgpass|\.netrc)$/i;

/** Programs and subcommands that print a secret alone, by words of their command line. */
const PRINTERS = [
  /\bwg\s+genkey\b/,
  /\bgcloud\s+auth\s+print-(?:access|identity)-token\b/,
  /\baz\s+account\s+get-access-token\b/,
  /\bdoctl\s+auth\s+token\b/,
  /\bfly(?:ctl)?\s+auth\s+token\b/,
  /\bheroku\s+(?:auth:token|config:get)\b/,
  /\baws\s+configure\s+get\s+\S*(?:secret|token|key)/i,
  /\bterraform\s+output\b/,
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
  // A value cut from an env file: `grep '^STRIPE' .env | cut -d= -f2`.
  /\.env\S*\s*\|[^\n]*\b(?:cut\s+-d\s*['"]?=|sed\s+['"]?s\/[^/]*=|awk\s+-F\s*['"]?=)/,
];

/** `printenv NAME`, `echo $NAME`, `echo "${NAME}"`, `echo %NAME%`, `$env:NAME`, `os.environ['NAME']`, `process.env.NAME`, `ENV['NAME']`: a variable whose name says it is a secret. */
const VARIABLE = /(?:\bprintenv\s+|\$\{?|\$env:|environ(?:\.get)?\(?\[?\s*['"]|getenv\(\s*['"]|process\.env\.|process\.env\[\s*['"]|\bENV\[\s*['"]|%)([A-Za-z_][A-Za-z0-9_]{0,80})/g;

/** `jq -r .password`, `yq '.db.password'`, `jq '.auth.token'`: a field whose name says it is a secret. */
const QUERY = /\b(?:jq|yq|gojq)\b[^|;&\n]*?['"]?\.([A-Za-z0-9_.[\]"-]{1,120})/g;

/** `cat secrets/db_password.txt`, `head -1 ~/.vault-token`, `Get-Content .\api-key.txt`. */
const SHOWS_FILE = /\b(?:cat|head|tail|less|more|bat|type|Get-Content|gc)\b((?:\s+-{1,2}[A-Za-z0-9-]+(?:[ =]\d+)?)*)\s+['"]?([^\s'"|;&<>]+)/g;

/** Whether a shell command prints a secret alone (its output is then read as one). */
export function printsSecret(command: string): boolean {
  if (command.length > 4000) return false;
  if (PRINTERS.some((p) => p.test(command))) return true;
  for (const m of command.matchAll(VARIABLE)) if (SECRET_NAME.test(m[1] as string)) return true;
  for (const m of command.matchAll(QUERY)) if (SECRET_NAME.test((m[1] as string).split(/[.[\]"]+/).filter((x) => x !== '').at(-1) ?? '')) return true;
  for (const m of command.matchAll(SHOWS_FILE)) if (readsSecretFile(m[2] as string)) return true;
  return false;
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
  // A source file that is about secrets is not one: `token.ts`, `password_reset.py`, `secrets.md`.
  if (/\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|swift|php|cs|md|html?|css|scss|ya?ml|toml|json|lock|sql|sh)$/i.test(path)) return false;
  return SECRET_FILE.test(path.replace(/[/\\]+$/, ''));
}

/** Output of more lines than this is a listing, not a secret printed alone: its labelled values are the redactor's. */
const MAX_LINES = 5;

/**
 * The words of a secret-printing command's output that are the secret: on an output of a few lines,
 * each word of 8 characters or more with a letter and a digit, or that looks generated. A line
 * number a read prefixes (`     1\t`) is no part of it.
 */
export function printedSecrets(output: string): string[] {
  const lines = output.split(/\r?\n/).map((l) => l.replace(/^\s*\d+[\t→]/, '').trim()).filter((l) => l !== '');
  if (lines.length === 0 || lines.length > MAX_LINES) return [];
  const out: string[] = [];
  for (const l of lines) {
    for (const w of l.match(/[^\s'"`=:;,(){}[\]<>|&\\]+/g) ?? []) {
      if (w.length < 8 || w.length > 400 || /^[a-z][a-z0-9+.-]*:\/\//i.test(w) || w.startsWith('/')) continue;
      // A region or a zone (`us-east-1`, `europe-west4-a`) is what `config:get REGION` prints.
      if (w.length <= 16 && /^[a-z]+(?:-[a-z]+){0,2}-?\d{1,2}(?:-[a-z])?$/.test(w)) continue;
      if (secretWord(w)) out.push(w);
    }
  }
  return out;
}

/** What a secret word is here: a letter and a digit, or generated-looking (a mask checks a word with it before it hashes one). */
export const secretWord = (w: string): boolean => (/\d/.test(w) && /[A-Za-z]/.test(w)) || looksRandom(w, 8);

/** Whether a variable's or a field's name says it holds a secret (exported for the tests). */
export const namesSecret = (name: string): boolean => SECRET_NAME.test(name);
