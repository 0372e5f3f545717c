import { foldWhitespace, truncate } from '../lib/text.js';

/* The excerpts of a digest's entries (split from view.ts by size). */

export const EXCERPT_LIMIT = 300;

/** An excerpt of a plain-text summary: whitespace folded, cut on a word with "…". */
export function excerptOfText(text: string, limit = EXCERPT_LIMIT): string {
  return tidyCut(truncate(foldWhitespace(text), limit));
}

/** "amet.…" reads as "amet…": punctuation left just before the ellipsis of a cut goes. */
function tidyCut(text: string): string {
  if (!text.endsWith('…')) return text;
  let end = text.length - 1;
  while (end > 0 && CUT_PUNCTUATION.has(text.charAt(end - 1))) end--;
  return end === text.length - 1 ? text : `${text.slice(0, end)}…`;
}

const CUT_PUNCTUATION = new Set([' ', '.', ',', ';', ':', '!', '?', '-', '\u2013', '\u2014']);
