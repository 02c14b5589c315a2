import { namesPassword, nameStrength } from './names.js';
import { looksRandom } from './randomness.js';
import { programOf, segments, words } from '../shell.js';

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
const SECRET_FILE_WORD = /(?:^|[._-])(?:tokens?|secrets?|passw(?:or)?ds?|passwd|passphrase|pwd|pw|credentials?|creds|apikey|api[_-]key|vault[_-](?:pass|token)|cookie|privatekey|private[_-]key|privkey)(?:$|[._-])/i;
const SECRET_FILE_NAME = /^(?:master\.key|\.pgpass|\.netrc|\.erlang\.cookie|keyfile|\.?htpasswd|shadow|gshadow)$/i;
const SECRET_FOLDER = /(?:^|[/\\])(?:[\w.]+[._-])?\.?(?:secrets|creds|credentials)[/\\]/i;
const NOT_A_SECRET_FILE = /(?:^|[._-])(?:example|sample|template|dist|test|tests|spec|mock|fixture|stub|config|tokenizer|counts?|usage|stats|design|colou?rs?|theme|vocab|special|ids|limits?|reset|policy|policies|rules?|prompts?)(?:$|[._-])|^(?:readme|license|notice|changelog|makefile|dockerfile)(?:\.|$)/i;
/** Folders of code, scripts and design files: a file in them named for a token is not one (`bin/refresh-token`, `design/tokens.txt`). */
const NOT_A_SECRET_FOLDER = /(?:^|[/\\])(?:bin|scripts?|src|lib|test|tests|spec|docs?|design|styles?|themes?|templates?|prompts?|node_modules)[/\\]/i;
/** Extensions a secret's file may have: none, or one that says what it holds. */
const SECRET_FILE_EXT = /^(?:txt|key|env|secret|secrets|token|pass|pw|pwd|password|passwd|cred|creds|credentials|cookie)$/i;

/** Global options a cloud CLI takes before its subcommand (`aws --profile prod ssm …`, `gcloud --project p secrets …`). */
// One way only to read each option (its first character after the dashes a word's): no backtracking to try.
const OPT = String.raw`(?:-{1,2}\w[\w-]*(?:[= ](?!-)\S+)?\s+)`;
const OPTS = `${OPT}*`;
/** A cloud CLI's subcommand after its global options. */
const cli = (program: string, rest: string): RegExp => new RegExp(String.raw`\b${program}\s+${OPTS}${rest}`);

/** Programs and subcommands that print a secret alone, by words of their command line. */
const PRINTERS = [
  /\bwg\s+genkey\b/,
  cli('gcloud', String.raw`auth\s+(?:application-default\s+)?print-(?:access|identity)-token\b`),
  // A registry's login password or token: `aws ecr get-login-password`, a deploy token (`fly tokens create deploy`).
  cli('aws', String.raw`ecr(?:-public)?\s+get-login-password\b`),
  /\bfly(?:ctl)?\s+tokens?\s+create\b/,
  cli('az', String.raw`account\s+get-access-token\b`),
  /\bdoctl\s+auth\s+token\b/,
  /\bfly(?:ctl)?\s+auth\s+token\b/,
  /\bheroku\s+auth:token\b/,
  /\baws\s+configure\s+get\s+\S*(?:secret|token|key)/i,
  /\bdoppler\s+secrets\s+get\b/,
  // Decryption, its flag wherever it stands (`sops --extract '["k"]' -d f`, `age -i keys.txt -d f`) or among others (`gpg -qd f`).
  /\bgpg\b[^\n|;&]*\s(?:-[a-zA-Z]*d[a-zA-Z]*|--decrypt)\b/,
  // gpg given only an encrypted file on its input, whose default is to decrypt it to its output (`gpg -q < secrets/db.txt.gpg`).
  /\bgpg(?:\s+(?:-q|--quiet|--batch|--yes|--no-tty|--pinentry-mode[= ]\S+|--passphrase-file[= ]\S+))*\s*<\s*['"]?[^\s'"|;&<>]+\.(?:gpg|pgp|asc)\b/,
  /\bsops\s+(?:--?\w[\w-]*(?:[= ](?:'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*))?\s+)*(?:-d|--decrypt)\b|\bsops\s+decrypt\b|\br?age\s+(?:(?:-[io]|--identity|--output)[= ]\S+\s+)*(?:-d|--decrypt)\b/,
  /\bansible-vault\s+(?:view|decrypt)\b/,
  /\bopenssl\s+(?:rand|enc\s[^\n|;&]*-d)\b/,
  /\bsecurity\s+find-(?:generic|internet)-password\b/,
  /\bop\s+(?:read|item\s+get)\b/,
  /\b(?:vault\s+(?:kv\s+)?(?:get|read)|bw\s+get|lpass\s+show|pass\s+show|gopass\s+show|chamber\s+read|secret-tool\s+lookup)\b/,
  /\bgh\s+auth\s+token\b/,
  /\bnpm\s+token\s+create\b/,
  /\b(?:rails|rake)\s+secret\b/,
  /\bkey:generate\b/,
  /\b(?:token_urlsafe|token_hex|get_random_secret_key)\b/,
  /\bpwgen\b/,
  /\bbase64\s+(?:-d|--decode|-D)\b/,
  cli('aws', String.raw`ssm\s+get-parameters?(?:-by-path)?\b[^\n]*--with-decryption\b`),
  cli('aws', String.raw`secretsmanager\s+(?:batch-)?get-secret-value\b`),
  cli('gcloud', String.raw`(?:alpha\s+|beta\s+)?secrets\s+versions\s+access\b`),
  cli('az', String.raw`keyvault\s+secret\s+show\b`),
  /\baz\s+[^\n|;&]*\bkeys?\s+list\b|\baz\s+[^\n|;&]*\blist-keys\b/,
  /\bgit\s+config\b[^\n|;&]*\s\S*(?:token|password|secret)\b/i,
  /\binfisical\s+secrets\s+get\b/,
  // A session's or an API's token printed raw: `op signin --raw`, `bw unlock --raw`, `heroku
  // authorizations:create`; a registry's or an app's deployment password (`az acr credential show`,
  // `az webapp deployment list-publishing-credentials`); the OS keyring (`keyring get smtp me`); an
  // AppRole's secret id (`vault write -f -field=secret_id …`).
  /\b(?:op\s+signin|bw\s+(?:unlock|login))\b[^\n|;&]*\s--raw\b/,
  /\bheroku\s+authorizations:create\b/,
  /\baz\s+[^\n|;&]*\b(?:acr\s+credential\s+show|list-publishing-credentials|list-publishing-profiles)\b/,
  /\bkeyring\s+get\b/,
  /\bvault\s+(?:write|token\s+create|login)\b[^\n|;&]*\s-field[= ](?:secret_id|token|client_token|password)\b/,
  /\bvault\s+print\s+token\b/,
  // A cluster's join tokens (the forty-third red team): `kubeadm token create` prints one bare,
  // `kubeadm token list` a table of them, `docker swarm join-token -q worker` one bare (without `-q`,
  // the `docker swarm join --token …` line to run); Laravel Sanctum's `->plainTextToken` printed.
  /\bkubeadm\s+token\s+(?:create|generate|list)\b/,
  /\bdocker\s+swarm\s+join-token\b/,
  // Consul's gossip encryption key, printed bare.
  /\bconsul\s+keygen\b/,
  /->\s*plainTextToken\b/,
  // An API Gateway key's value: `aws apigateway get-api-key --api-key k --include-value`.
  cli('aws', String.raw`apigateway\s+get-api-keys?\b[^\n|;&]*--include-values?\b`),
  // pass's and gopass's shorthand for `show`: `pass prod/db`, `gopass acme/stripe`.
  // A name of one word (`pass github`) or quoted (`pass "acme/prod-db"`), after the store's variables (`PASSWORD_STORE_DIR=… pass acme/smtp`).
  /(?:^|[;&|(]\s*)(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:(?:go)?pass\s+(?!(?:ls|list|show|insert|add|edit|rm|remove|delete|mv|move|cp|copy|git|init|grep|find|search|help|version|sync|generate|audit|config|setup|otp)\b)(?!-)(['"]?)[\w.@-]+\/[\w./@-]+\1|pass\s+(?!(?:ls|list|show|insert|add|edit|rm|remove|delete|mv|move|rename|cp|copy|git|init|grep|find|search|help|version|generate|audit|otp|import|tomb|update)\b)(?!-)(['"]?)[\w.@-]+\2)(?:\s+\d?>\s*\/dev\/null)?\s*(?:$|[;&|)])/,
];

/**
 * Printers whose output is a secret or not by the name they are given: the first group of each is
 * the name (a variable, a key, a field), or nothing when they print every value. A name that says
 * it is a secret (`DB_PASSWORD`, `password`) makes the output a secret; another name (`APP_VERSION`,
 * `username`) does not; none makes it a list of values (`cut -d= -f2 .env`), of which only the
 * generated-looking words are taken (the red team of the thirty-second stop: versions, hosts and
 * model names printed so were masked for the rest of the session).
 */
const NAMED: readonly RegExp[] = [
  // A configuration value by its name: `heroku config:get DATABASE_PASSWORD`, `pulumi config get
  // dbPassword`, `terraform output -raw db_password`, a secret's key by jsonpath (`.data.password`).
  /\bheroku\s+config:get\s+(?:-\S+\s+)*([A-Za-z_][\w-]*)/,
  // A hosting platform's variable by its name: `netlify env:get DB_PASSWORD`, `railway variables
  // get SMTP_PASS`, `dokku config:get app SECRET_KEY`, `convex env get CLERK_SECRET_KEY`.
  /\b(?:netlify|ntl)\s+env:get\s+(?:-\S+\s+)*([A-Za-z_]\w*)/,
  /\brailway\s+variables?\s+get\s+(?:-\S+\s+)*([A-Za-z_]\w*)/,
  /\b(?:dokku|ssh\s+(?:-\S+\s+)*dokku@\S+)\s+config:get\s+(?:-\S+\s+)*[\w.-]+\s+([A-Za-z_]\w*)/,
  /\bconvex\s+env\s+get\s+(?:-\S+\s+)*([A-Za-z_]\w*)/,
  /\bpulumi\s+config\s+get\s+(?:-\S+\s+)*(?:[\w-]+:)?([A-Za-z_][\w.-]*)/,
  /\bterraform\s+output\s+(?:-\S+\s+)*-raw\s+(?:-\S+\s+)*([A-Za-z_]\w*)/,
  /\bkubectl\b[^\n|;&]*jsonpath=[^\n]*?\.data(?:\.([\w-]+)|\[\\?['"]([\w.-]+))?/,
  // `npx dotenv-cli -p DB_PASSWORD`, `dotenvx get KEY`.
  /\bdotenvx?(?:-cli)?\b[^\n|;&]*?(?:\s-p\s*|\sget\s+)([A-Za-z_]\w*)/,
  // `kubectl view-secret db password` (a key, or every key), a go-template's `.data.<key> | base64decode`.
  /\b(?:kubectl\s+(?:-\S+\s+\S+\s+)*view-secret|\bk\s+view-secret)\s+(?:-\S+\s+\S+\s+)*\S+(?:\s+([\w.-]+))?/,
  /\b(?:kubectl|oc)\b[^\n|;&]*go-template[= ](?:[^\n]*?\.data\.([\w-]+))?[^\n]*\bbase64decode\b/,
  // The environment filtered, then each value cut from its name: `env | grep TOKEN | cut -d= -f2`,
  // `env | sed -n 's/^GITHUB_TOKEN=//p'`; the names are those its filters give (printsHow).
  /\b(?:env|printenv|set|export\s+-p)\s*\|[^\n]*?(?:cut\s+(?:-f\s*\d+\s+)?(?:-d\s*['"]?=|--delimiter=?['"]?=)|sed\s+(?:-\w+\s+)*['"]?s[/|#,][^\n]*=|awk\s+(?:-F\s*['"]?=|['"][^'"]*FS\s*=\s*"=)|grep\s+-\w*o)()/,
  // A value cut from an env file: `grep '^STRIPE' .env | cut -d= -f2`.
  /\bgrep\s+(?:-\w+\s+)*['"]?\^?([A-Za-z_]\w*)[^|\n]*\.env(?!\.(?:example|sample|template|dist)\b)\S*\s*\|[^\n]*\b(?:cut\s|sed\s|awk\s)/,
  // A constant decoded and printed: `print(base64.b64decode('U3Vt…').decode())`, `console.log(atob('…'))`.
  /\b(?:print|console\.log)\([^\n]*\b(?:b64decode|atob|Buffer\.from)\(()/,
  // A Workers KV value by its key: `wrangler kv key get API_TOKEN --binding=CONFIG` (`kv:key get` before wrangler 3.60).
  // Each option has one reading (its value after a space only in the first form, after `=` only in
  // the second), so a long run of them does not backtrack.
  /\bwrangler\s+kv(?::key|\s+key)\s+get\s+(?:--(?:binding|namespace-id|env|config|persist-to)\s+[^\s-]\S*\s+|-{1,2}(?!(?:binding|namespace-id|env|config|persist-to)\s)\w[\w-]*(?:=\S+)?\s+)*['"]?([A-Za-z_][\w.-]*)/,
];

/**
 * Redis's setting or key by its name (`redis-cli CONFIG GET requirepass`, `redis-cli -n 2 GET
 * api_token`, valkey's): the key's last part decides, by a strong name of five letters or more
 * (`auth:config:version` is no secret, nor an `auth` field, nor `pass:8812:barcode`).
 */
const REDIS_GET = /\b(?:redis|valkey)-cli\b[^\n|;&]*?\s(?:CONFIG\s+GET|GET|HGET\s+\S+)\s+['"]?([\w.:-]+)/i;

/**
 * What the clipboard holds (`pbpaste`, `xclip -selection clipboard -o`, `xsel -b`, `wl-paste`,
 * `Get-Clipboard`, `osascript -e 'the clipboard'`): a secret copied to paste as often as a commit's
 * hash or an error's trace id, so read as a secret's source is (`mentioned`: the generated-looking
 * words but digests and public ids; the fortieth stop's red team).
 */
const CLIPBOARD = /(?:^|[;&|(]\s*)(?:pbpaste|wl-paste|xclip\b[^\n|;&]*\s-o(?:ut)?\b|xsel\b[^\n|;&]*\s(?:-o|--output|-b|--clipboard)\b)|\bGet-Clipboard\b|\bosascript\b[^\n|;&]*\bthe clipboard\b|\bpyperclip\.paste\(/i;

/**
 * Rules that read a printed value by a name and decide only when the name says it is a secret: a
 * name that does not says nothing of the rest of the command (`aws sts get-caller-identity --query
 * Account` beside a `node -p` that reads a secret's file). A stack's output by its name (`pulumi
 * stack output dbPassword --show-secrets`), a package manager's setting by its key (`npm config get
 * //acme.jfrog.io/…/:_authToken`, `yarn config get npmAuthToken --no-redacted`), an SSM parameter by its path's last part (`aws ssm get-parameter
 * --name /prod/stripe_secret_key`); and what an AWS or Azure query picks (QUERIED).
 */
const NAMED_SECRET: readonly RegExp[] = [
  cli('pulumi', String.raw`stack\s+output\s+${OPT}*?([A-Za-z_][\w.-]*)(?:\s|$)`),
  // Only options without a value here: the word after `get` is the key.
  /\b(?:npm|pnpm|yarn)\s+config\s+get\s+(?:-{1,2}\w[\w-]*(?:=\S+)?\s+)*(?:\S*:)?([\w-]+)/,
  cli('aws', String.raw`ssm\s+get-parameter\s[^\n|;&]*--name[= ]\s*['"]?(?:\S*\/)?([\w.-]+)`),
];

/**
 * What an AWS or Azure `--query` picks, by its last name (`Credentials.SecretAccessKey`,
 * `passwords[0].value`), when it names one and its output is not piped on: a secret's name decides a
 * secret as NAMED_SECRET's do, another name what an AWS or Azure printer prints.
 */
const QUERIED = /\b(?:aws|az)\s[^\n|;&]*--query[= ]\s*['"]?(?:[\w\]\[0-9*?=!'"]*\.)*([A-Za-z_]\w*)\b(?!\.)(?!\s*\|)/;

/**
 * A value picked from a list by the name beside it: an AWS or Azure query's filter
 * (`--query "[?name=='DB_PASSWORD'].value"`, `Outputs[?OutputKey=='DbPassword'].OutputValue`), jq's
 * `select(.name=="DB_PASSWORD") | .value`; and an AWS query's list of names
 * (`Credentials.[AccessKeyId,SecretAccessKey,SessionToken]`). The name decides, as QUERIED's.
 */
const PICKED_BY_NAME = /\[\?\s*\w+\s*==\s*\\?[`'"]([A-Za-z_][\w.-]*)\\?[`'"]\s*\]\s*\.\s*(?:value|Value|OutputValue|ParameterValue|SecretString)\b|\bselect\(\s*\.(?:name|Name|key|Key)\s*==\s*\\?"([A-Za-z_][\w.-]*)\\?"\s*\)\s*(?:\|\s*)?\.(?:value|Value)\b/g;
/** jq's name given as an argument: `jq --arg n DB_PASSWORD '.[] | select(.name==$n) | .value'`. */
const JQ_ARG_PICKED = /\bjq\b[^\n|;&]*?--arg\s+(\w+)\s+['"]?([A-Za-z_][\w.-]*)['"]?[^\n;&]*?select\(\s*\.(?:name|Name|key|Key)\s*==\s*\$\1\s*\)\s*(?:\|\s*)?\.(?:value|Value)\b/;
const QUERIED_LIST = /\b(?:aws|az)\s[^\n|;&]*--query[= ]\s*['"]?[\w.[\]0-9*]*\.?\[([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\]/;

/**
 * A variable whose name says it is a secret, printed: `printenv NAME`, `echo $NAME`, `echo
 * "${NAME}"`, `printf '%s' "$NAME"`, `echo %NAME%`, `$env:NAME` alone or written out,
 * `print(os.environ['NAME'])`, `console.log(process.env.NAME)`, `puts ENV['NAME']`. A command that
 * only uses one (`curl -H "Bearer $TOKEN" … | jq .id`, `PGPASSWORD=$DB_PASSWORD psql`) prints
 * something else.
 */
const REF = `(?:\\$ENV\\{\\s*['"]?|\\$env:|\\$\\{?|%|os\\.environ(?:\\.get)?\\(?\\[?\\s*\\\\?['"]|os\\.getenv\\(\\s*\\\\?['"]|process\\.env\\.|process\\.env\\[\\s*['"]|ENV\\[\\s*['"]|ENV\\.fetch\\(\\s*\\\\?['"])`;
const VARIABLE = new RegExp(
  `(?:\\bprintenv\\s+|(?:^|[;&|("'\\s]\\s*|\\$\\(\\s*)(?:echo(?:\\s+-[neE]+)*|printf\\s+(?:'[^']*'|"[^"]*")|Write-(?:Output|Host)|print\\(|print\\s|console\\.log\\(|puts|p|(?:node|deno)\\s+-p)\\s*(?:\\\\?["']){0,3}\\s*${REF}|^\\s*["']?${REF}(?=[A-Za-z_][A-Za-z0-9_]*["']?\\s*$)|\\b(?:powershell|pwsh)(?:\\.exe)?\\s+(?:-\\w+\\s+)*-c(?:ommand)?\\s+["']?\\s*${REF}(?=[A-Za-z_][A-Za-z0-9_]*["']?\\s*$))([A-Za-z_][A-Za-z0-9_]{0,80})`,
  'gm',
);

/** `jq -r .password`, `yq '.db.password'`, `jq '.auth.token'`: a field whose name says it is a secret. */
const QUERY = /\b(?:jq|yq|gojq)\b[^|;&\n]*?['"]?\.([A-Za-z0-9_.[\]"-]{1,120})/g;

/** `cat secrets/db_password.txt`, `head -1 ~/.vault-token`, `Get-Content .\api-key.txt`. */
/**
 * Where a program that prints a file may start: a command's start, or after what runs it
 * elsewhere or as another user (`sudo -u app`, `time`, `ssh prod`, `docker exec -u root api`,
 * `kubectl exec -n prod pod --`, `find … -exec`, `xargs`), its path written whole (`/usr/bin/awk`).
 */
const STARTS = `(?:^|[;&|(\`'"]\\s*|\\$\\(\\s*|\\b(?:sudo(?:\\s+-[a-zA-Z]+(?:\\s+[\\w.-]+)?|\\s+--[\\w-]+(?:=\\S+)?)*|time|nice|nohup|env|xargs(?:\\s+-\\S+)*|ssh(?:\\s+-[a-zA-Z]+(?:\\s+[\\w@.:/-]+)?)*\\s+[\\w@.-]+|(?:docker|podman)(?:[\\s-]compose)?\\s+exec(?:\\s+-\\S+(?:\\s+[\\w.-]+)?)*\\s+[\\w.-]+|exec(?:\\s+-\\S+)*\\s+[\\w.-]+\\s+(?:--\\s+)?|(?:kubectl|oc)\\b[^\\n|;&]*?\\bexec\\b[^\\n|;&]*?\\s--|-exec)\\s+)(?:/[\\w./-]*/)?`;
const SHOWS_FILE = new RegExp(`${STARTS}(?:cat|head|tail|less|more|bat|type|Get-Content|gc)\\b((?:\\s+-{1,2}[A-Za-z0-9-]+(?:[ =]\\+?\\d+)?)*)(?:\\s*<\\s*|\\s+)['"]?([^\\s'"|;&<>]+)`, 'gm');
/** A file given first, then the program that reads it: `< secrets/token cat`, `<secrets/t tr -d '\\n'`. */
const REDIRECT_FIRST = /(?:^|[;&|(]\s*)<\s*['"]?([^\s'"|;&<>]+)['"]?\s+(?:\/[\w./-]*\/)?(?:cat|head|tail|tr|awk|sed|cut|grep|strings|xxd|od|base64)\b/gm;

/** Whether a shell command prints a secret alone (its output is then read as one). */
export function printsSecret(command: string): boolean {
  const how = printsHow(command);
  return how === 'secret' || how === 'values';
}

/**
 * What a shell command prints alone: `secret`, a secret (every secret word of its output is one);
 * `values`, values of which some may be secrets and some not (only the generated-looking words are
 * taken); `mentioned`, what a command that names a secret's source prints in a way no rule reads
 * (the generated-looking words but digests and public ids, mentionedSecret); null, nothing secret.
 */
export function printsHow(command: string): 'secret' | 'values' | 'mentioned' | null {
  if (command.length > 4000) return null;
  let values = false;
  // A printer given a name that says no secret (`kubectl view-secret db username`) was read.
  let read = false;
  for (const p of NAMED) {
    const m = p.exec(command);
    if (m === null) continue;
    const name = m[1] ?? m[2];
    if (name === '' && /^\S*\b(?:env|printenv|set|export)\b/.test(m[0])) {
      // The environment filtered: by the names its filters give (`grep TOKEN`, `grep -i pass`, `s/^GITHUB_TOKEN=//p`).
      const names = (command.slice(command.indexOf('|')).match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? []).filter((n) => !FILTER_WORDS.has(n.toLowerCase()));
      if (names.some((n) => namesSecret(n.toUpperCase()))) return 'secret';
      if (names.length === 0) values = true;
      else read = true;
    } else if (name === undefined || name === '') values = true;
    else if (namesSecret(name.replace(/-/g, '_'))) return 'secret';
    // An option's value may stand where the name is looked for (`ntl env:get --context production
    // STRIPE_SECRET_KEY`, `heroku config:get -a api DB_PASSWORD`): a name among the words after it.
    // Or a key in another case (`pulumi config get --stack prod dbPassword`), by a strong name.
    // A name in camelCase or snake_case of two parts or more: a word joined by `-` is an app's or a service's (`-a hall-pass`).
    else if (wordsAfter(command, (m.index ?? 0) + m[0].length).some((w) => (/^[A-Z][A-Z0-9_]{2,}$/.test(w) && namesSecret(w)) || (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$|^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(w) && nameStrength(w) === 'strong'))) return 'secret';
    else read = true;
  }
  const how = printsSecretAlone(command);
  if (how === 'none' || (how === null && read)) return values ? 'values' : how === 'none' && mentionedApart(command) ? 'mentioned' : null;
  return how !== null ? how : values ? 'values' : mentionsSecret(command) || CLIPBOARD.test(command) ? 'mentioned' : null;
}

/** The words of the simple command from `at` on, options left out. */
function wordsAfter(command: string, at: number): string[] {
  return words(segments(command.slice(at))[0] ?? '').filter((w) => !w.startsWith('-'));
}

/**
 * Whether a pipeline of a command names a secret's source that no rule reads, though a rule read
 * another pipeline of it as printing none: what `sort -u .gitignore | wc -l` hands to `wc` says
 * nothing of what `node -p "…readFileSync('secrets/api_token')…"` before it prints.
 */
function mentionedApart(command: string): boolean {
  const pipelines = segments(command, true);
  return pipelines.length > 1 && pipelines.some((p) => printsSecretAlone(p) === null && mentionsSecret(p));
}

/**
 * Whether a command read as printing a secret names it as a password: a variable (`printenv
 * DB_PASSWORD`, `echo $ADMIN_PW`), a name a printer is given (`netlify env:get ADMIN_PASSWORD`), or
 * a file (`cat secrets/db_password.txt`).
 */
export function printsPassword(command: string): boolean {
  if (command.length > 4000) return false;
  for (const m of command.matchAll(VARIABLE)) if (namesPassword(m[1] as string)) return true;
  for (const p of NAMED) {
    const name = p.exec(command)?.[1];
    if (name !== undefined && name !== '' && namesPassword(name.replace(/-/g, '_'))) return true;
  }
  for (const m of command.matchAll(SHOWS_FILE)) if (readsSecretFile(m[2] as string) && /passw|passphrase|pwd/i.test((m[2] as string).replace(/^.*[/\\]/, ''))) return true;
  return false;
}

/** A secret's file under a suffix a copy or an encoding adds: `api_token.bak`, `token.b64`, `db_password.gpg`. */
const COPY_SUFFIX = /\.(?:b64|base64|enc|gpg|asc|age|bak|old|orig|save|backup|copy|tmp|\d{1,3})$/i;
/** The words of a command line a file's or a variable's name may be: quotes, brackets, `$`, `:` and `=` part them. */
const MENTION_WORD = /[^\s'"`=(),;|&<>{}[\]$:]{3,300}/g;
/**
 * Programs and calls that decode what they are given: `base64 -di`, `FromBase64String`,
 * `b64decode`, `atob`, `Buffer.from(…, 'base64')`, jq's `@base64d` of a Kubernetes secret's
 * `.data` (not of a config map's, whose values are ids and builds), `openssl base64 -d`.
 */
const DECODES = /\bbase64\b[^|;&\n]*\s(?:-[a-zA-Z]*[dD][a-zA-Z]*\b|--decode\b)|\bFromBase64String\b|\bb64decode\b|\batob\(|\bBuffer\.from\([^)]*\\?['"]base64\\?['"]|\bsecrets?\b[^\n]*@base64d\b|\bopenssl\s+(?:base64|enc\b[^|;&\n]*-base64)[^|;&\n]*\s-d\b/;

/**
 * Whether a command names a secret's source though no rule above reads how it prints it: a secret's
 * file (also as a copy, `api_token.bak`), a dotenv file, a variable whose upper-case name says it
 * holds a secret (`GetEnvironmentVariable('DB_PASSWORD')`, `[ "$k" = STRIPE_KEY ]`, `printf
 * "$STRIPE_KEY"`), or a decoder. Every way a program, a one-liner or a shell may print what it
 * reads is more than patterns can list (the red team of the thirty-second stop: `xargs cat`, `find
 * -exec cat {}`, pathlib, `node -p`, PHP, Ruby, PowerShell, `while read`): of its output, on a few
 * lines (printedSecrets), the generated-looking words are taken but digests and public ids
 * (notePrinted in ingest.ts). A source a command only uses is not named so (the thirty-eighth red
 * team): a variable handed to another program (`--api-key $STRIPE_SECRET_KEY`,
 * `PGPASSWORD="$DB_PASSWORD" psql`, `-H "Bearer $GITHUB_TOKEN"`), a dotenv file loaded (`source
 * .env &&`, `--env-file .env.prod`, `dotenv -e`), a file given as an option's value or uploaded
 * (`--body secrets/x`, `-F file=@x`), a file a program hashes (`md5sum`, `Get-FileHash`).
 */
function mentionsSecret(command: string): boolean {
  if (DECODES.test(command)) return true;
  for (const seg of segments(command)) {
    const program = programOf(seg);
    if (HASHERS.test(program) || DERIVES_PUBLIC.test(program) || program === 'source' || program === '.') continue;
    const prints = PRINTS_VALUE.test(program);
    for (const m of seg.matchAll(MENTION_WORD)) {
      const w = m[0];
      const before = seg.slice(Math.max(0, (m.index ?? 0) - 40), m.index);
      if (/^[A-Z][A-Z0-9_]{2,}$/.test(w)) {
        // `$NAME`, `${NAME}`, `%NAME%`: a variable's value, printed only by a program that prints;
        // `NAME=…` sets it (`PGPASSWORD="$DB_PASSWORD" psql`).
        if ((/(?:\$\{?|%)$/.test(before) && !prints) || seg.charAt((m.index ?? 0) + w.length) === '=') continue;
        if (namesSecret(w)) return true;
        continue;
      }
      // An option's value: `--body secrets/x`, `-i secrets/deploy_key`, `-v $PWD/secrets:/run/secrets`.
      if (w.startsWith('-') || /(?:--[\w-]+[= ]\s*['"]?|(?:^|\s)-[a-zA-Z]\s+['"]?[^\s('"]*|@|fileb?:\/\/)$/.test(before)) continue;
      // A name of words (`api_token`) is a file's only where files are looked for (`find secrets -name api_token -exec cat {} \;`).
      if (!/[./\\]/.test(w) && !(/[_-]/.test(w) && FINDERS.test(program))) continue;
      if (readsSecretOrCopy(w) || ENV_FILE.test(w) || ENV_FILE.test(w.replace(COPY_SUFFIX, ''))) return true;
    }
  }
  return false;
}

/** Programs that print what they are given, a variable's value among it. */
const PRINTS_VALUE = /^(?:echo|printf|print|puts|cat|write-output|write-host|say)$/;
/** Programs that print what a private key's public half is (`wg pubkey < privatekey`, `ssh-keygen -y -f id`, `-lf` its fingerprint), not the key. */
const DERIVES_PUBLIC = /^(?:wg|ssh-keygen|age-keygen|ssh-add)$/;
/** Programs that print a file's digest, not its text. */
const HASHERS = /^(?:md5sum|md5|sha\d*sum|shasum|b2sum|cksum|get-filehash|certutil)$/;
/** Programs that look for files by name. */
const FINDERS = /^(?:find|fd|fdfind|locate|ls)$/;

/**
 * What a command prints alone, by the rules that read how it prints: as printsHow, or `none` when a
 * rule read it and found no secret printed (one handed on to a consumer, a dotenv file's names or
 * another variable's value), null when no rule could read it.
 */
function printsSecretAlone(command: string): 'secret' | 'values' | 'none' | null {
  // `az acr credential show --query username`: the query picks what is printed.
  const queried = QUERIED.exec(command)?.[1];
  const picksOther = queried !== undefined && !/^values?$/i.test(queried) && !namesSecret(queried);
  if (PRINTERS.some((p) => p.test(command)) && !(picksOther && /\b(?:aws|az)\s/.test(command))) return 'secret';
  // Azure's `keyData` is a VM's public SSH key.
  if (queried !== undefined && queried !== 'keyData' && namesSecret(queried)) return 'secret';
  // By a strong name only: a `KmsKey`'s value is an ARN, a `RECAPTCHA_SITE_KEY`'s public.
  for (const m of command.matchAll(PICKED_BY_NAME)) if (nameStrength((m[1] ?? m[2] ?? '').replace(/[-.]/g, '_')) === 'strong') return 'secret';
  if (nameStrength((JQ_ARG_PICKED.exec(command)?.[2] ?? '').replace(/[-.]/g, '_')) === 'strong') return 'secret';
  // Of several names, values: the others (an access key's id) are printed beside the secret. Not
  // by `Key` (an S3 object's, a tag's).
  const listed = QUERIED_LIST.exec(command)?.[1]?.split(/\s*,\s*/) ?? [];
  const queriedValues = listed.some((n) => nameStrength(n) === 'strong');
  const redis = REDIS_GET.exec(command)?.[1]?.split(':').at(-1) ?? '';
  if (redis.length >= 5 && nameStrength(redis) === 'strong') return 'secret';
  for (const p of NAMED_SECRET) {
    const name = p.exec(command)?.[1];
    if (name !== undefined && namesSecret(name.replace(/-/g, '_'))) return 'secret';
  }
  let none = false;
  for (const m of command.matchAll(VARIABLE)) {
    if (!namesSecret(m[1] as string)) continue;
    // `echo "$REGISTRY_PASSWORD" | docker login --password-stdin` hands it on: it is not printed.
    const rest = command.slice((m.index ?? 0) + m[0].length);
    if (!(/^[^;&\n]*\|(?!\|)/.test(rest) && !FILTER.test(rest.replace(/^[^|]*/, '')))) return 'secret';
    none = true;
  }
  for (const m of command.matchAll(QUERY)) {
    // A trailing `.value` names nothing: the key before it does (`terraform output -json | jq -r '.db_password.value'`).
    const keys = (m[1] as string).split(/[.[\]"]+/).filter((x) => x !== '' && !/^\d+$/.test(x));
    if (keys.length > 1 && /^(?:value|values|data|raw)$/i.test(keys.at(-1) as string)) {
      keys.pop();
      // A weak name then says too little (`.kms_key.value` is an ARN).
      if (nameStrength(keys.at(-1) ?? '') === 'strong') return 'secret';
      continue;
    }
    if (namesSecret(keys.at(-1) ?? '')) return 'secret';
  }
  for (const seg of segments(command)) if ((INTERPRETERS.test(programOf(seg)) || WRAPPED_INTERPRETER.test(seg)) && printsSecretAttribute(seg)) return 'secret';
  const sql = selectsSecret(command);
  if (sql === 'secret') return sql;
  // Values: a part cut out may be the password or the host and database (`cut -d@ -f2`, `${X#*@}`).
  const urlPart = CREDENTIAL_URL.test(command) && URL_PART.test(command);
  for (const m of command.matchAll(READ_INTO)) {
    if (readsSecretFile((m[2] ?? m[4]) as string) && new RegExp(`\\b(?:echo|printf|print|puts)\\b[^\\n;|&]*\\$\\{?${m[1] ?? m[3]}\\b`).test(command.slice((m.index ?? 0) + m[0].length))) return 'secret';
  }
  for (const m of command.matchAll(SHOWS_FILE)) {
    if (!readsSecretFile(m[2] as string)) continue;
    // From the program's name on: the match may begin with what runs it (`$(`, `sudo `).
    const at = (m.index ?? 0) + Math.max(0, m[0].search(/\b(?:cat|head|tail|less|more|bat|type|Get-Content|gc)\b/));
    if (!handedOn(command, at, (m.index ?? 0) + m[0].length)) return 'secret';
    none = true;
  }
  for (const m of command.matchAll(REDIRECT_FIRST)) if (readsSecretFile(m[1] as string)) return 'secret';
  let values = false;
  for (const m of command.matchAll(EXTRACTOR)) {
    const how = extractsSecret(m[1] as string, m[2] as string, command.slice((m.index ?? 0) + m[0].length));
    if (how === 'secret') return how;
    if (how === 'values') values = true;
    if (how === 'none') none = true;
  }
  for (const m of command.matchAll(READ_INTO_PRINT)) if (readsSecretFile(m[1] ?? m[2] ?? m[3] ?? '')) return 'secret';
  return values || urlPart || sql === 'values' || queriedValues ? 'values' : none ? 'none' : null;
}

/** A database's client, run as a program (`psql -Atc "…"`, `sqlite3 app.db "…"`, `mysql -e "…"`), or run in a container. */
const SQL_CLIENTS = new Set(['psql', 'pgcli', 'mysql', 'mycli', 'mariadb', 'sqlite3', 'litecli', 'duckdb', 'clickhouse', 'clickhouse-client', 'sqlcmd', 'usql']);
const WRAPPED_SQL_CLIENT = /\b(?:docker|podman|kubectl)\b[^\n|;&]*\s(?:psql|mysql|mariadb|sqlite3|clickhouse-client)\s/;
const SELECT = /\bselect\s+(?:distinct\s+)?([^;]{1,400}?)\s+from\s+["`]?([\w.]+)/gi;
/** A table whose rows are secrets by its whole name (`api_tokens`, `oauth_access_tokens`; not `erc20_tokens`, `design_tokens`, `webauthn_credentials`). */
const SECRET_TABLE = /(?:^|\.)(?:\w+_)?(?:api|access|refresh|auth|oauth|bearer|session)_(?:tokens|keys)$|(?:^|\.)(?:api_keys|api_tokens|personal_access_tokens|secrets|passwords)$/i;
/** A column as it is printed: its name (qualified, quoted), or a function of it that keeps its value (`lower(api_key)`, `encode(secret, 'hex')`), and the name it is given. */
const COLUMN = /^(?:(?:lower|upper|encode|substring|substr|left|right|trim|btrim|ltrim|rtrim|hex|to_base64|base64|cast)\(\s*)?(?:\w+\.)?["`]?(\w+)["`]?(?:\s*(?:,[^()]*|\s+(?:from|as)\s+[^()]*)?\))?(?:\s+(?:as\s+)?["`]?\w+["`]?)?$/i;

/**
 * What a database client's query prints when it selects a column whose name says, strongly, that it
 * holds a secret (`select token from api_tokens`, `select id, email, api_key from users`, MySQL's
 * `authentication_string`), or every column of a table named for them (`select * from api_tokens`):
 * the column alone is the secret; beside others, or every column, values (only the
 * generated-looking words are taken). Not a weak name or a short one (`key`, `pass`: a feature
 * flag's, a test's), nor an expression of it (`count(token)`, `token is not null as has_token`),
 * nor another name (`token_count`); only in a command that runs a client (`git log -S "select …"`
 * runs none).
 */
function selectsSecret(command: string): 'secret' | 'values' | null {
  if (!/\bselect\b/i.test(command)) return null;
  let how: 'secret' | 'values' | null = null;
  for (const seg of segments(command)) {
    if (!SQL_CLIENTS.has(programOf(seg)) && !WRAPPED_SQL_CLIENT.test(seg)) continue;
    for (const m of seg.matchAll(SELECT)) {
      const columns = (m[1] as string).split(/,(?![^()]*\))/).map((c) => c.trim());
      if (columns.length === 1 && /^(?:\w+\.)?\*$/.test(columns[0] as string)) {
        if (SECRET_TABLE.test(m[2] as string)) how = 'values';
        continue;
      }
      const secret = columns.some((c) => {
        const name = COLUMN.exec(c)?.[1];
        return name !== undefined && (name.toLowerCase() === 'authentication_string' || (name.length >= 5 && nameStrength(name) === 'strong'));
      });
      if (!secret) continue;
      if (columns.length === 1) return 'secret';
      how = 'values';
    }
  }
  return how;
}

/**
 * Programs that print part of a file: `awk -F= '/^DB_PASSWORD/{print $2}' .env`, `sed -n 1p
 * secrets/token`, `cut -d= -f2 .env`, `grep -oP '(?<=KEY=).*' .env.local`, `tr -d '\n' <
 * ~/.vault-token`: what they print is the value alone, without the label the redactor reads.
 */
const EXTRACTOR = new RegExp(`${STARTS}(awk|gawk|mawk|sed|cut|grep|egrep|rg|tr|strings|tac|nl|sort|xxd|od|fold)\\b([^|;&\\n]*)`, 'gm');
/**
 * A variable that holds a connection's URL, its password in it (`DATABASE_URL`, `REDIS_URL`,
 * `MONGO_URI`, `CELERY_BROKER_URL`, `SENTRY_DSN`), and a command that takes a part of it out:
 * printed whole, the URL's rules find the password after its user; cut out (`echo $REDIS_URL | cut
 * -d: -f3`, `new URL(process.env.DATABASE_URL).password`, `urlparse(…).password`) it stands alone.
 */
const CREDENTIAL_URL = /(?:\$\{?|process\.env\.|process\.env\[\s*\\?['"]|os\.environ(?:\.get)?\(?\[?\s*\\?['"]|os\.getenv\(\s*\\?['"]|ENV\[\s*\\?['"]|\$env:)(?:[A-Z0-9]+_)*(?:DATABASE|DB|DIRECT|KV|REDIS|MONGO(?:DB)?|POSTGRES(?:QL)?|PG|MYSQL|MARIADB|AMQP|RABBITMQ|BROKER|CACHE|ELASTIC(?:SEARCH)?|SMTP|MAIL|FTP|SFTP|KAFKA|NATS|MQTT|CLICKHOUSE|NEO4J|CONNECTION)_(?:URL|URI|DSN)(?:_(?:NON_POOLING|UNPOOLED|POOLED|POOLER|DIRECT|PRIMARY|REPLICA|RO|RW|READONLY|PROD|PRODUCTION|STAGING|DEV|TEST|LOCAL))?\b/;
const URL_PART = /\|\s*(?:cut|awk|gawk|sed|grep\s+-\w*o)\b|\.password\b|\.(?:netloc|userinfo|auth)\b|\bparse_url\(|\$\{[A-Z0-9_]+[#%]/;
/** A file read into a variable that is printed after: `read -r t < secrets/db_password.txt; echo "$t"`, `t=$(<secrets/x); echo "$t"`. */
const READ_INTO = /\b(?:read|mapfile|readarray)\s+(?:-[a-zA-Z]+\s+)*([A-Za-z_]\w*)\s*<\s*['"]?([^\s'"|;&<>]+)|\b([A-Za-z_]\w*)=["']?\$\(\s*<\s*['"]?([^\s'"|;&<>)]+)/g;

/** Programs that run a one-liner of code, and what of it prints an attribute (`print(settings.SECRET_KEY)`, `puts credentials.dig(:mailgun, :api_key)`). */
const INTERPRETERS = /^(?:python[\d.]*|py|node|deno|bun|ruby|rails|php|perl|irb)$/;
const PRINTED_CHAIN = /\b(?:print|puts|pp|console\.log|say|var_dump|print_r)\b\s*\(?\s*((?:[A-Za-z_$][\w$]*)(?:\(\))?(?:\.[A-Za-z_$][\w$]*(?:\(\))?|\.(?:dig|fetch)\([^()]+\)|\[\s*\\?['"][\w.-]{1,80}\\?['"]\s*\])*)\s*(?:\)|$|[;'"]|,\s*(?:end|sep|flush|file)\s*=)/g;
/** A tokenizer's special tokens (`pad_token`, `eos_token`): words of a model's vocabulary, no secret. */
const TOKENIZER_TOKEN = /^(?:pad|eos|bos|unk|cls|sep|mask|special|additional_special)_tokens?(?:_id)?$/i;
/** `print(getattr(settings, 'stripe_secret_key'))`: an attribute by its name as a string. */
const PRINTED_GETATTR = /\b(?:print|puts|pp)\s*\(\s*getattr\(\s*[\w.]+\s*,\s*\\?['"]([A-Za-z_]\w*)\\?['"]/g;
/** An interpreter a wrapper runs: `bundle exec rails runner '…'`, `docker compose exec web python -c '…'`. */
const WRAPPED_INTERPRETER = /\b(?:bundle\s+exec|(?:docker|podman)(?:[\s-]compose)?\s+(?:exec|run)\b(?:\s+[^\s|;&]+){1,8}?|heroku\s+run\b(?:\s+[^\s|;&]+){0,4}?|kubectl\b[^\n|;&]*?\bexec\b[^\n|;&]*?\s--)\s+(?:python[\d.]*|node|ruby|rails|php|perl)\b/;

/**
 * Whether a one-liner prints an attribute, a key or a variable whose name says it holds a secret:
 * `print(settings.SECRET_KEY)`, `puts Rails.application.credentials.dig(:mailgun, :api_key)`,
 * `puts ENV.fetch("SMTP_PASSWORD")`. Only a print call's own argument, an access chain and nothing
 * else: not one compared, called or wrapped (`print(u.password is not None)`, `bool(s.SECRET_KEY)`,
 * `!!u.otp_secret`), by a strong name only (`cfg.kms_key` is weak), and of several arguments only
 * the first (`print(tok.name_or_path, tok.eos_token)` prints a model's name first).
 */
function printsSecretAttribute(seg: string): boolean {
  for (const m of seg.matchAll(PRINTED_CHAIN)) {
    const chain = m[1] as string;
    if (!chain.includes('.') && !chain.includes('[')) continue;
    // The last name of the chain: `.SECRET_KEY`, `["SECRET_KEY"]`, `dig(:mailgun, :api_key)`'s last symbol, `fetch("SMTP_PASSWORD")`'s key.
    const last = /\[\s*\\?['"]([\w.-]+)\\?['"]\s*\]$/.exec(chain)?.[1] ?? /\.(?:dig|fetch)\(([^()]*)\)$/.exec(chain)?.[1]?.match(/[A-Za-z_]\w*/g)?.at(-1) ?? chain.slice(chain.lastIndexOf('.') + 1).replace(/\(\)$/, '');
    if (nameStrength(last) === 'strong' && !TOKENIZER_TOKEN.test(last)) return true;
  }
  for (const m of seg.matchAll(PRINTED_GETATTR)) if (nameStrength(m[1] as string) === 'strong' && !TOKENIZER_TOKEN.test(m[1] as string)) return true;
  return false;
}
/** A value read from a file straight into a print: `echo "$(<secrets/token)"`, `print(open('secrets/key').read())`, `console.log(fs.readFileSync('…'))`. */
const READ_INTO_PRINT = /\b(?:echo|printf\s+(?:'[^']*'|"[^"]*"))\s+["']?\$\(\s*<\s*['"]?([^\s'")]+)|\bprint\(\s*open\(\s*\\?['"]([^'"\\]+)\\?['"][^)]*\)\.read(?:line)?\(\)|console\.log\(\s*(?:[\w$]+\.|require\(\s*\\?['"](?:node:)?fs\\?['"]\s*\)\.)?readFileSync\(\s*\\?['"]([^'"\\]+)/g;
/** A dotenv file: `.env`, `.env.production.local`, `deploy/prod.env`, `.envrc`; not `.env.example`. */
const ENV_FILE = /^(?:.*[/\\])?(?:\.env(?:rc)?(?:\.(?!example|sample|template|dist|defaults?\b)[\w-]+)*|[\w-]+\.env)$/i;
/** The words of a filter's command line that are no variable's name. */
const FILTER_WORDS = new Set(['env', 'printenv', 'set', 'export', 'grep', 'egrep', 'cut', 'sed', 'awk', 'gawk', 'print', 'head', 'tail', 'sort', 'uniq', 'xargs', 'echo', 'delimiter', 'fields', 'only', 'matching', 'ignore', 'case']);

/** Programs a value may be piped through and still be printed (a filter, not a consumer). */
const FILTER = /^\s*\|\s*(?:head|tail|tr|cut|sed|awk|grep|xargs(?:\s+echo\b|\s*(?:$|[|;&)]))|base64|sort|uniq|tee|cat|rev|fold|od|jq|write-output|write-host|out-string|out-host|select-object|format-\w+)\b/i;

/**
 * Whether what a command reads at [start, end) is handed to another program, not printed (the
 * thirty-eighth red team): piped to a consumer (`cat secrets/registry_password.txt | docker login
 * --password-stdin`), or substituted into another program's words or environment (`GH_TOKEN=$(cat
 * secrets/gh_token) gh api …`, `-H "Bearer $(cat secrets/token)"`), unless the variable it is
 * given to is printed after (`t=$(cat secrets/x); echo "$t"`).
 */
function handedOn(command: string, start: number, end: number): boolean {
  const rest = command.slice(end);
  if (/^[^;&\n]*\|(?!\|)/.test(rest) && !FILTER.test(rest.replace(/^[^|]*/, ''))) return true;
  const before = command.slice(Math.max(0, start - 200), start);
  if (!/\$\(\s*$/.test(before)) return false;
  const assigned = /(?:^|[\s;&|(])(?:export\s+)?([A-Za-z_]\w*)=["']?\$\(\s*$/.exec(before);
  if (assigned !== null) return !new RegExp(`\\b(?:echo|printf|print|puts|cat)\\b[^\\n;|&]*\\$\\{?${assigned[1]}\\b`).test(rest);
  // Substituted into a command's words: printed only by a program that prints.
  return !PRINTS_VALUE.test(programOf(segments(before.slice(0, before.lastIndexOf('$('))).at(-1) ?? ''));
}

/**
 * What a program's words print: a secret file's text (`secret`), values cut out of a dotenv file
 * (`secret` when its pattern names a secret, nothing when it names another variable or prints
 * names only, `values` when it names none), or nothing.
 */
function extractsSecret(program: string, args: string, rest: string): 'secret' | 'values' | 'none' | null {
  // Handed on to a consumer (`| docker login --password-stdin`), not printed.
  if (/^\s*\|(?!\|)/.test(rest) && !FILTER.test(rest)) return 'none';
  const words = args.match(/'[^']*'|"[^"]*"|<\s*\S+|\S+/g) ?? [];
  // grep's, sed's and awk's first word is a pattern or a script (`grep password src/`); tr's two
  // are sets of characters: their files are the words after (tr reads only what `<` gives it).
  // An option that gives the script (`sed -e 's/…//'`, `grep -e x`, `awk -f prog`) takes its place.
  let script = /^(?:grep|egrep|rg|sed|awk|gawk|mawk|tr)$/.test(program) ? (program === 'tr' ? 2 : 1) : 0;
  const scripts: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const raw = words[i] as string;
    const w = raw.replace(/^<\s*/, '').replace(/^['"]|['"]$/g, '');
    if (/^-(?:e|f|-regexp|-file|-expression)$/.test(raw) && script > 0) {
      scripts.push(words[i + 1] ?? '');
      script -= 1;
      i += 1;
      continue;
    }
    if (w.startsWith('-') && !raw.startsWith('<')) continue;
    if (script > 0 && !raw.startsWith('<')) {
      scripts.push(raw);
      script -= 1;
      continue;
    }
    if (w === '') continue;
    if (readsSecretFile(w)) return 'secret';
    // A dotenv file is read line by line, each a label and its value: only a program that cuts the
    // value out prints it bare (`grep DB_PASSWORD .env` prints the label beside it).
    if (ENV_FILE.test(w) && cutsValues(program, args)) return byNames(program, args, scripts.join(' '));
  }
  return null;
}

/** Whether a program, so invoked, prints the values of a dotenv file's lines without their names. */
function cutsValues(program: string, args: string): boolean {
  switch (program) {
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'cut':
      return true;
    case 'sed':
      return /\s-[a-zA-Z]*n\b/.test(args) || /\bs([/|#,])[^\n]*?=[^\n]*?\1/.test(args);
    case 'grep':
    case 'egrep':
    case 'rg':
      return /\s-[a-zA-Z]*o|--only-matching\b|\(\?<=|\\K/.test(args);
    default:
      return false;
  }
}

/** Of values cut from a dotenv file: by the names its script gives, and whether it prints names only. */
function byNames(program: string, args: string, script: string): 'secret' | 'values' | 'none' {
  // Names only: `cut -d= -f1`, `awk -F= '{print $1}'`, `grep -oE '^[A-Z0-9_]+'`.
  if (program === 'cut' && /(?:^|\s)(?:-f\s*1|--fields=1)(?:\s|$)/.test(args)) return 'none';
  if (/^[gm]?awk$/.test(program) && /print\s+\$1\s*[;}]/.test(script) && !/\$[2-9]/.test(script)) return 'none';
  const names = script.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g)?.filter((n) => /[A-Z]/.test(n) && n === n.toUpperCase()) ?? [];
  if (names.some((n) => namesSecret(n))) return 'secret';
  // A name's part (`/STRIPE/`, `/AWS/`) matches the lines of several variables, secrets among them.
  return names.some((n) => n.includes('_')) ? 'none' : 'values';
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

/** Whether a file's path names a file that holds a secret, or a copy of one (`api_token.bak`, `token.b64`). */
export function readsSecretOrCopy(path: string): boolean {
  return readsSecretFile(path) || (COPY_SUFFIX.test(path) && readsSecretFile(path.replace(COPY_SUFFIX, '')));
}

/** Whether a file's path names a file that holds a secret (a read of it prints one). */
export function readsSecretFile(path: string): boolean {
  const p = path.replace(/[/\\]+$/, '');
  const name = p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
  if (name === '' || NOT_A_SECRET_FILE.test(name) || NOT_A_SECRET_FOLDER.test(p)) return false;
  if (SECRET_FILE_NAME.test(name)) return true;
  // `.vault-token`, `db_password.txt`, `api.key`, `/run/secrets/db`: not `token.h`, `password_reset.py`.
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  if (ext !== '' && !SECRET_FILE_EXT.test(ext)) return false;
  if (ext.toLowerCase() === 'key' || SECRET_FOLDER.test(p)) return true;
  return SECRET_FILE_WORD.test(name);
}

const ERROR_LINE = /\b(?:error|not found|no such|denied|forbidden|invalid|usage:|unknown|failed|cannot|can't|unable)\b/i;

/** Output of more lines than this is a listing, not a secret printed alone: its labelled values are the redactor's. */
const MAX_LINES = 5;

/**
 * The words of a secret-printing command's output that are the secret: on an output of a few lines,
 * each word of 8 characters or more with a letter and a digit, or that looks generated. A line
 * number a read prefixes (`     1\t`) is no part of it.
 */
export function printedSecrets(output: string): string[] {
  // `tail -n +1 secrets/*`, `head secrets/a secrets/b`: each file under its `==> name <==` is read
  // alone, and only a file whose name says it holds a secret (not a log beside it).
  const sections = output.includes('==> ') ? [...output.matchAll(SECTIONS)] : [];
  if (sections.length > 0) return sections.filter((m) => readsSecretOrCopy(m[1] as string)).flatMap((m) => printedIn(outputLines(m[2] as string)));
  return printedIn(outputLines(output));
}

/** The line `head` and `tail` print before each file's text when given several, and the text under it. */
const SECTIONS = /^==> (.{1,400}) <==$\n([\s\S]*?)(?=^==> .{1,400} <==$|(?![\s\S]))/gm;

function printedIn(lines: string[]): string[] {
  if (lines.length === 0 || lines.length > MAX_LINES) return [];
  // A tree of names (`pass acme/prod` on a folder prints one): a listing.
  if (lines.some((l) => /^[│├└]/.test(l))) return [];
  // A JSON document (a decoded token's claims, an API's answer) names its values: the redactor's.
  // An array of values names none (`["q7Lm…"]`, R's `[1] "q7Lm…"`), and `[sudo] password for dev:`
  // or `[value]` is no JSON: only an object, or a list of them, is skipped.
  if (/^(?:\{|\[\s*(?:\{|$))/.test(lines[0] as string)) return [];
  const out: string[] = [];
  for (const l of lines) {
    // A line that says the command failed names what it could not find, not a secret
    // (`Error from server (NotFound): secrets "db-creds-v2" not found`), or ids to look it up by.
    if (ERROR_LINE.test(l)) continue;
    for (const w of wordsOf(l)) {
      if (w.length < 8 || w.length > 400 || /^[a-z][a-z0-9+.-]*:\/\//i.test(w) || w.startsWith('/')) continue;
      // A region or a zone (`us-east-1`, `europe-west4-a`) is what `config:get REGION` prints.
      if (w.length <= 16 && /^[a-z]+(?:-[a-z]+){0,2}-\d{1,2}(?:-[a-z])?$|^[a-z]+-[a-z]+\d{1,2}(?:-[a-z])?$/.test(w)) continue;
      // A date or a time cut at its `:` (`2026-05-01T10`) is in every log line.
      if (/^\d{4}-\d{2}-\d{2}/.test(w)) continue;
      // A host or a file by its name (`db01.internal`, `secrets-v2.yaml`) is what a label's value
      // may be by mistake, and is named again and again after.
      // An extension is in one case (`.yaml`, `.JPG`); `k9Xq2LmPzR.vTbnWq` ends in none.
      if (/\.(?:[a-z]{2,8}|[A-Z]{2,8})(?::\d{1,5})?$/.test(w) && !/\d$/.test(w)) continue;
      if (!secretWord(w)) continue;
      out.push(w);
      // `cat -A` (or `-E`) ends each line with a `$`: the word without it is the secret too.
      if (w.endsWith('$') && w.length > 8) out.push(w.slice(0, -1));
    }
  }
  return out;
}

/** The words a mask looks for (src/core/ingest.ts TYPED_WORD): quotes of any kind part them. */
const wordsOf = (line: string): string[] => line.match(/[^\s'"`=:;,(){}[\]<>|&\\«»“”‘’]+/g) ?? [];

/** An output's lines as a printer's are read: trimmed, without a read's line numbers (`     1\t`, `1→`), the harness's header lines or empty ones. */
function outputLines(output: string): string[] {
  return output
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*\d+[\t→]/, '').trim())
    .filter((l) => l !== '' && !HARNESS_LINE.test(l));
}

/** A word as a mask reads one (src/core/ingest.ts TYPED_WORD): nothing that parts words in it. */
const ONE_WORD = /^[^\s'"`=:;,(){}[\]<>|&\\«»“”‘’→]+$/;

/**
 * Of a secret-printing command's output, a secret of plain words printed alone on its one line
 * (`correct-horse-battery-staple`, `Tr0ubadour-and-friends`): one that printedSecrets does not take,
 * for it looks written, not generated. Only a line that is one word, with a sign or a digit in it or
 * 12 characters long, so that no everyday word is remembered.
 */
export function plainPrinted(output: string, password = false): string[] {
  const lines = outputLines(output);
  if (lines.length !== 1) return [];
  const w = lines[0] as string;
  // A password by its name, made up short (`hunter2`, `Xk9#pQ2`): a letter with a digit or a sign,
  // not a number or a version. Not by any other name: a user's or a database's (`app_dev`), a
  // runtime (`node20`), a key's prefix (`sk_test`) are as short (this stop's red team).
  if (password && (w.length === 6 || w.length === 7) && ONE_WORD.test(w) && /[A-Za-z]/.test(w) && /[^A-Za-z]/.test(w) && !/^v?\d+(?:\.\d+)*$/.test(w) && !ERROR_LINE.test(w)) return [w];
  if (w.length < 8 || w.length > 200 || !ONE_WORD.test(w) || secretWord(w) || ERROR_LINE.test(w) || /^(?:[a-z][a-z0-9+.-]*:|\/|~)/i.test(w)) return [];
  return /[^A-Za-z]/.test(w) || w.length >= 12 ? [w] : [];
}

/**
 * A word that looks generated, not written: what is taken of values some of which may not be
 * secrets (a version `2.14.3-rc1`, a build id `build20260501a`, a model `claude-sonnet-4-5` are not).
 */
/**
 * What a command that only names a secret's source prints most that is none: a digest in hex of
 * one case (a commit, an md5, a sha256 or sha512: `md5sum secrets/a secrets/a.bak`, `jq -r .sha`),
 * and an API's public id (`cus_Q2wE3rT4yU5iO6`, `dpl_…`, `msg_…`), never a prefix a secret key has
 * (`sk_`, `rk_`, `whsec_`, `ghp_`, `xoxb_`, …).
 */
const DIGEST = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64}|[0-9A-F]{128})$/;
const PUBLIC_ID = /^[a-z]{2,8}_[A-Za-z0-9]{8,40}$/;
const SECRET_PREFIX = /^(?:sk|rk|whsec|gh[pousr]|github|glpat|xox[abpre]|npm|pypi|pat|key|keys|secret|token|tok|api|apikey|sess|session|auth|pass|pw|pwd|hf|dop|shp(?:at|ss|ca|pa)|sq0csp|sl|sg|live|test|prod|priv|private|access|refresh|bearer|cred|creds)_/;
/** A word of a command that only names a secret's source that is taken: generated-looking, and no digest or public id. */
export const mentionedSecret = (w: string): boolean => generated(w) && !DIGEST.test(w) && !(PUBLIC_ID.test(w) && !SECRET_PREFIX.test(w));

export const generated = (w: string): boolean => looksRandom(w, 12) && !/^v?\d+(?:[.-]\w+)*$/i.test(w) && !/^[a-z]+(?:[-_.][a-z0-9]+)+$/.test(w) && !/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(w);

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
