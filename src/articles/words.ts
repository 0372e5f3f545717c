/** Words a minute of an adult reading on a screen, the usual figure behind "5 min read". */
export const WORDS_PER_MINUTE = 230;

/** Words in plain text: runs of non-space characters that hold at least one letter or digit. */
export function countWords(text: string | null): number {
  if (text === null) return 0;
  let count = 0;
  for (const token of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(token)) count++;
  return count;
}

/** Minutes to read `words`, rounded, at least 1 for any text; 0 when there is none. */
export function readingMinutes(words: number): number {
  return words === 0 ? 0 : Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}
