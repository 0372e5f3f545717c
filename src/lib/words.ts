/** Words a minute of an adult reading on a screen, the usual figure behind "5 min read". */
export const WORDS_PER_MINUTE = 230;

/** From a token's first letter or digit to its end: one match per word, and no array of tokens made. */
const WORD = /[\p{L}\p{N}]\S*/gu;

/** Words in plain text: runs of non-space characters that hold at least one letter or digit. */
export function countWords(text: string | null): number {
  if (text === null) return 0;
  let count = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) count++;
  return count;
}

/** Minutes to read `words`, rounded, at least 1 for any text; 0 when there is none. */
export function readingMinutes(words: number): number {
  return words === 0 ? 0 : Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}
