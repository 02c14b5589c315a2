/**
 * Long base64 runs (inline images, archives, keys) become a size note: never copied. Finding
 * them samples every BASE64_STRIDE-th character and measures the run around a sample only when
 * it lands on a base64 character: ordinary text costs a few steps per 256 characters.
 */

export const BASE64_MIN_CHARS = 512;
/** Sampling step: any run of BASE64_MIN_CHARS contains a sample when the step is no longer. */
const BASE64_STRIDE = 256;

function isB64(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

export function collapseBase64(text: string): string {
  const n = text.length;
  let out = '';
  let pos = 0;
  let i = 0;
  while (i < n) {
    if (!isB64(text.charCodeAt(i))) {
      i += BASE64_STRIDE;
      continue;
    }
    let start = i;
    while (start > pos && isB64(text.charCodeAt(start - 1))) start -= 1;
    let end = i + 1;
    while (end < n && isB64(text.charCodeAt(end))) end += 1;
    if (end - start >= BASE64_MIN_CHARS && mixed(text, start, end)) {
      let stop = end;
      while (stop < n && text.charCodeAt(stop) === 61 && stop - end < 2) stop += 1;
      out += text.slice(pos, start) + `[base64: ${Math.max(1, Math.round(((stop - start) * 3) / 4 / 1024))} KB omitted]`;
      pos = stop;
      end = stop;
    }
    i = end + 1;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** Base64 of binary data mixes upper case, lower case and digits; long words and hex do not. */
function mixed(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  let digit = false;
  for (let j = start; j < end && !(upper && lower && digit); j += 1) {
    const c = text.charCodeAt(j);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
    else if (c >= 48 && c <= 57) digit = true;
  }
  return upper && lower && digit;
}
