import type { Findings } from './findings.js';
import { PRIORITY } from './findings.js';
import type { Handler, LiteralScanner } from './literals.js';
import { isPlaceholder } from './names.js';
import { looksRandom } from './randomness.js';

/**
 * A password or key given in a sentence of another language: `新密码是 Xq9…`, `密码：…`, `API 密钥：…`,
 * `パスワード：…`, `비밀번호는 …`, `Пароль для входа: …`, `la contraseña es …`. The literal scanner
 * reads ASCII only, so these labels are searched for apart, and only in a text that holds a
 * character beyond ASCII. After the label, on its line: a few characters, then a colon, an equals
 * sign or the language's "is" (是, 为, は, 는, es, est, ist, lautet, jest, är), then the value — a
 * word with an ASCII letter and a digit, or generated-looking. A word of the language, a
 * placeholder or a plain word is none.
 */

const HINT = /[^\x00-\x7f]/;
/** Labels that start with a letter beyond ASCII, searched for in a text that holds one. */
const WIDE_LABEL = String.raw`(?:密码|密碼|口令|密钥|密鑰|秘钥|秘鑰|令牌|访问令牌|パスワード|暗証番号|비밀번호|암호|[Пп]ароль|ПАРОЛЬ|[Кк]люч(?:\s+API)?|[Şş]ifre)`;
/** …and those that start in ASCII, found by the literal scanner (ASCII_LABELS). */
const LABEL = String.raw`(?:${WIDE_LABEL}|[Cc]ontraseña|[Ss]enha|[Pp]asswort|[Kk]ennwort|[Mm]ot de passe|[Ww]achtwoord)`;
const ASCII_LABELS = ['Contrase', 'contrase', 'Senha', 'senha', 'Passwort', 'passwort', 'Kennwort', 'kennwort', 'Mot de passe', 'mot de passe', 'Wachtwoord', 'wachtwoord'];
const LINK = String.raw`(?:[:：=]|是|为|為|は|는|은|이|\s(?:es|est|é|ist|lautet|jest|är|—|-|–)\s)`;
const VALUE = String.raw`[ \t\u00a0\u202f\u3000]*[「『“"'\`«]?([^\s"'\`“”「」『』«»，。、；;,()（）<>]{6,200})`;
const AFTER = String.raw`[^\n]{0,24}?${LINK}${VALUE}`;
const FOREIGN = new RegExp(`${WIDE_LABEL}${AFTER}`, 'dg');

/** The same from a label found by the literal scanner (a language's label in ASCII: `Passwort`, `senha`). */
const FOREIGN_AT = new RegExp(`${LABEL}${AFTER}`, 'dy');

export function findForeignLabelled(text: string, found: Findings): void {
  if (!HINT.test(text)) return;
  FOREIGN.lastIndex = 0;
  for (let m = FOREIGN.exec(text); m !== null; m = FOREIGN.exec(text)) take(m, found);
}

/** Removes the value of a match when it is one: true when it was. */
function take(m: RegExpExecArray, found: Findings): boolean {
  const range = m.indices?.[1];
  const value = m[1]?.replace(/[.!?。！？]+$/, '');
  // A sentence's full stop after the value is not part of it.
  if (range === undefined || value === undefined || value.length < 6 || isPlaceholder(value)) return false;
  if (!(/[A-Za-z]/.test(value) && /\d/.test(value)) && !looksRandom(value, 10)) return false;
  found.add(range[0], range[0] + value.length, 'labelled_secret', PRIORITY.name);
  return true;
}

const atLabel: Handler = (text, at, found) => {
  FOREIGN_AT.lastIndex = at;
  const m = FOREIGN_AT.exec(text);
  return m !== null && take(m, found) ? at + 1 : -1;
};

/** The labels written in ASCII, which a text of ASCII alone may hold. */
export function registerLanguages(scanner: LiteralScanner): void {
  for (const w of ASCII_LABELS) scanner.add(w, atLabel);
}
