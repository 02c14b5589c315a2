import type { Findings } from './findings.js';

/**
 * One pass over a text finds every literal that some rule starts from (a provider prefix, a
 * command name, `://`, a PEM marker, a secret word such as `token`) and hands each hit to that
 * rule. A tight loop looks up each three characters (letter case folded) in a table built from
 * the literals' first three characters; only at a hit does it walk the tries of the literals (one
 * as written, one for the literals found in any case) and compare. On the transcripts this runs several times faster than a regular expression
 * alternation of the same literals, or one `includes` per literal.
 */

/** Looks at a hit of its literal at `at`; returns where the scan resumes, or -1 to go on at at + 1. */
export type Handler = (text: string, at: number, found: Findings) => number;

interface Entry {
  literal: string;
  handler: Handler;
  /** The literal must start a token: the character before it is not a letter or a digit. */
  boundary: boolean;
  caseless: boolean;
}

interface Node {
  /**
   * Children by character code (every literal is printable ASCII): an array index beats a Map at
   * the root, where every hit starts. Below it most nodes have one child or two: their codes and
   * children are two short arrays searched in order (a 128-slot array per node held some 1 KB
   * each, a few MB for the whole trie in each thread).
   */
  next: (Node | undefined)[] | null;
  codes: number[];
  kids: Node[];
  entries: Entry[];
}

const newNode = (dense = false): Node => ({ next: dense ? new Array<Node | undefined>(128).fill(undefined) : null, codes: [], kids: [], entries: [] });

function child(node: Node, c: number): Node | undefined {
  if (node.next !== null) return node.next[c];
  const codes = node.codes;
  for (let k = 0; k < codes.length; k += 1) if (codes[k] === c) return node.kids[k];
  return undefined;
}

function addChild(node: Node, c: number): Node {
  const made = newNode();
  if (node.next !== null) node.next[c] = made;
  else {
    node.codes.push(c);
    node.kids.push(made);
  }
  return made;
}
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Printable ASCII to itself with A-Z folded to a-z; everything else to 0 (no literal holds it). */
const FOLD = new Uint8Array(1 << 16);
for (let c = 32; c < 127; c += 1) FOLD[c] = c >= 65 && c <= 90 ? c + 32 : c;
/** Letters and digits: a literal that must start a token is not looked for after one. */
const ALNUM = new Uint8Array(1 << 16);
for (let c = 0; c < 128; c += 1) ALNUM[c] = isAlnum(c) ? 1 : 0;
/**
 * Which three-character starts begin some literal, exactly: per pair of folded characters, a
 * 128-bit set of third characters (256 KiB, small enough to stay in cache).
 */
const word = (a: number, b: number, c: number): number => (((a << 7) | b) << 2) | (c >> 5);

export class LiteralScanner {
  /** Literals matched as written (keyed by character code), and literals found in any case (keyed folded). */
  private readonly exact = newNode(true);
  private readonly folded = newNode(true);
  /** Per folded pair of characters, the set of folded third characters that start some literal. */
  private readonly starts = new Uint32Array(1 << 16);
  /**
   * The same for the literals that may start inside a word (`boundary: false`). Inside a word
   * (a letter or digit before a letter or digit) only these can match, and half the table's hits
   * on prose are there (`nd`, `nt` of a two-letter prefix, in any word that holds them).
   */
  private readonly inWord = new Uint32Array(1 << 16);
  /** The trie nodes along the text at one position (reused: this runs at many positions). */
  private readonly path: Node[] = [];

  /** A literal the rule starts from; `caseless` also finds it in any letter case. */
  add(literal: string, handler: Handler, opts: { boundary?: boolean; caseless?: boolean } = {}): this {
    if (literal.length < 2 || /[^\x20-\x7e]/.test(literal)) throw new Error(`a scanner literal is two or more printable ASCII characters: "${literal}"`);
    const caseless = opts.caseless ?? false;
    // The table is folded for every literal (a hit is only a hint); the trie walk tells the cases apart.
    const key = (i: number): number => FOLD[literal.charCodeAt(i)] as number;
    const tables = (opts.boundary ?? true) ? [this.starts] : [this.starts, this.inWord];
    const a = key(0);
    const b = key(1);
    const mark = (c: number): void => {
      for (const t of tables) t[word(a, b, c)] = ((t[word(a, b, c)] as number) | (1 << (c & 31))) >>> 0;
    };
    if (literal.length === 2) for (let c = 0; c < 128; c += 1) mark(c);
    else mark(key(2));
    let node = caseless ? this.folded : this.exact;
    for (let i = 0; i < literal.length; i += 1) {
      const c = caseless ? (FOLD[literal.charCodeAt(i)] as number) : literal.charCodeAt(i);
      node = child(node, c) ?? addChild(node, c);
    }
    node.entries.push({ literal, handler, boundary: opts.boundary ?? true, caseless });
    return this;
  }

  scan(text: string, found: Findings): void {
    for (let i = this.next(text, 0); i !== -1; i = this.next(text, i)) {
      const resume = this.at(text, i, found);
      i = resume > i ? resume : i + 1;
    }
  }

  /**
   * The next index from `from` whose three characters start some literal that may match there
   * (inside a word, only one that need not start a token: `at` would skip the others); a tight
   * loop on purpose.
   */
  private next(text: string, from: number): number {
    const n = text.length;
    if (from >= n - 1) return -1;
    const starts = this.starts;
    let a = FOLD[text.charCodeAt(from)] as number;
    let b = FOLD[text.charCodeAt(from + 1)] as number;
    for (let i = from; i < n - 1; i += 1) {
      const c = i + 2 < n ? (FOLD[text.charCodeAt(i + 2)] as number) : 0;
      const w = (((a << 7) | b) << 2) | (c >> 5);
      if ((((starts[w] as number) >>> (c & 31)) & 1) === 1) {
        if (i === 0 || ALNUM[text.charCodeAt(i - 1)] === 0 || ALNUM[text.charCodeAt(i)] === 0) return i;
        if ((((this.inWord[w] as number) >>> (c & 31)) & 1) === 1) return i;
      }
      a = b;
      b = c;
    }
    return -1;
  }

  /** Every literal starting at i, longest first (as written, then in any case); the first handler that takes the hit wins. */
  private at(text: string, i: number, found: Findings): number {
    const token = i === 0 || !isAlnum(text.charCodeAt(i - 1)) || !isAlnum(text.charCodeAt(i));
    const a = this.walk(text, i, this.exact, false, found, token);
    return a !== -1 ? a : this.walk(text, i, this.folded, true, found, token);
  }

  private walk(text: string, i: number, root: Node, fold: boolean, found: Findings, token: boolean): number {
    let depth = 0;
    let node: Node | undefined = root;
    for (let j = i; j < text.length; j += 1) {
      const c = text.charCodeAt(j);
      node = child(node, fold ? (FOLD[c] as number) : c & 127);
      if (node === undefined || c >= 128) break;
      this.path[depth] = node;
      depth += 1;
    }
    for (let k = depth - 1; k >= 0; k -= 1) {
      for (const e of (this.path[k] as Node).entries) {
        if (e.boundary && !token) continue;
        const resume = e.handler(text, i, found);
        if (resume !== -1) return resume;
      }
    }
    return -1;
  }
}
