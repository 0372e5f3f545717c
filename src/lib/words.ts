/** Words a minute of an adult reading on a screen, the usual figure behind "5 min read". */
export const WORDS_PER_MINUTE = 230;

/** A letter or a digit of any script (tested on one code point outside ASCII). */
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** Whether a UTF-16 unit is whitespace as JavaScript's `\s` has it (no whitespace lies outside the BMP). */
function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Words in plain text: runs of non-space characters (`\S`) that hold at least one letter or digit, the
 * matches of `[\p{L}\p{N}]\S*` (flags g and u) counted in one scan of the character codes. Running that
 * expression made a match array a word, a sixth of a newsletter's parse (bench:inbound); here a word's
 * remaining characters are only checked for the space that ends it once it counted.
 */
export function countWords(text: string | null): number {
  if (text === null) return 0;
  let count = 0;
  let counted = false; // the current run of non-space characters holds a letter or digit already
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      counted = false;
    } else if (!counted) {
      if (c < 0x80) {
        counted = (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
      } else {
        const point = text.codePointAt(i) ?? c;
        counted = LETTER_OR_DIGIT.test(String.fromCodePoint(point));
        if (point > 0xffff) i++; // the low half of a surrogate pair is no space
      }
      if (counted) count++;
    }
  }
  return count;
}

/** Minutes to read `words`, rounded, at least 1 for any text; 0 when there is none. */
export function readingMinutes(words: number): number {
  return words === 0 ? 0 : Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}
