/**
 * The bidi controls that can disguise text: the embeddings and overrides (U+202A–U+202E) and the isolates
 * (U+2066–U+2069). In a title or a name they reorder what is shown around them: "\u202Egnp.exe" reads
 * "exe.png", and an unclosed one runs on into the text after it (an e-mail's subject, a terminal's next
 * column). Titles and names are text, so folding drops them, as it drops other controls (issue 25, F7);
 * where text is shown without folding, withoutBidiControls() does.
 *
 * The marks are kept (issue 33): U+200E LRM, U+200F RLM and U+061C ALM are invisible letters of one
 * direction, which Hebrew, Arabic and Persian titles use to place a number or punctuation mark on the
 * right side of a word. A mark has no scope and reverses nothing, so it cannot disguise text.
 */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** `text` without its bidi controls (BIDI_CONTROLS): for a title or name shown as it was stored. */
export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/** Whether a UTF-16 unit is one of BIDI_CONTROLS (lib/text.ts folding drops them). */
export const isBidiControl = (c: number): boolean =>
  (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
