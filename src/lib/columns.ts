/**
 * The columns `text` takes in a monospaced plain-text e-mail: two for a wide or full-width character
 * (Chinese, Japanese, Korean, full-width punctuation), one for any other code point. An underline of `=`
 * under a heading is as long as the heading looks: "保存したリンク" takes 14 columns, not 7.
 */
export function columns(text: string): number {
  let n = 0;
  for (const ch of text) n += isWide(ch.codePointAt(0) ?? 0) ? 2 : 1;
  return n;
}

/** East Asian Wide and Fullwidth (Unicode UAX #11), by its blocks. */
function isWide(c: number): boolean {
  return (
    (c >= 0x1100 && c <= 0x115f) || // Hangul Jamo initials
    (c >= 0x2e80 && c <= 0x303e) || // CJK radicals, ideographic description, CJK symbols and punctuation
    (c >= 0x3041 && c <= 0x33ff) || // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
    (c >= 0x3400 && c <= 0x4dbf) || // CJK Extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK Unified Ideographs
    (c >= 0xa000 && c <= 0xa4cf) || // Yi
    (c >= 0xac00 && c <= 0xd7a3) || // Hangul syllables
    (c >= 0xf900 && c <= 0xfaff) || // CJK Compatibility Ideographs
    (c >= 0xfe30 && c <= 0xfe4f) || // CJK Compatibility Forms
    (c >= 0xff00 && c <= 0xff60) || // Fullwidth forms
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1f64f) || // pictographs and emoticons
    (c >= 0x20000 && c <= 0x3fffd) // CJK Extensions B and later
  );
}
