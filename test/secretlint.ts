import { readStoredText } from './helpers.js';
import { extname } from 'node:path';
import { lintSource } from '@secretlint/core';
import { creator } from '@secretlint/secretlint-rule-preset-recommend';

/**
 * An independent second opinion on what the store holds: secretlint's recommended preset, a rule
 * set the security field maintains, run over every file, so the product's own patterns are
 * never their own judge. It is slow on large inputs, so files are read in pieces of whole lines;
 * no credential spans lines but a PEM block, and a piece never ends inside a block that began in it.
 */

const PIECE_CHARS = 256 * 1024;
const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] };

function pieces(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PIECE_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start) end = nl + 1;
      const begin = text.lastIndexOf('-----BEGIN', end);
      if (begin > start && text.indexOf('-----END', begin) >= end) end = text.lastIndexOf('\n', begin) + 1 || end;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** `file:line rule/message` for every finding (values masked), over every file given. */
export async function secretlintFindings(files: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const text = await readStoredText(file);
    let lineBase = 0;
    for (const content of pieces(text)) {
      const r = await lintSource({ source: { filePath: file, content, ext: extname(file), contentType: 'text' }, options: { maskSecrets: true, config: CONFIG } });
      for (const m of r.messages) found.push(`${file}:${lineBase + m.loc.start.line}: ${m.ruleId} ${m.messageId}`);
      lineBase += content.split('\n').length - 1;
    }
  }
  return found;
}
