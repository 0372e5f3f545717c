import { foldWhitespace, truncate } from './text.js';

/*
 * The reading list's tags, one rule for every writer (an import, a wallabag client) and reader: stored
 * lower-cased in one text, each followed by "\n" and the whole preceded by one ("\nweb\nrust\n"; '' when
 * none: store/schemaReadingList.ts ReadingListTable.tags).
 */

/** Tags kept per item, and characters per tag. */
export const TAGS_PER_ITEM = 50;
export const TAG_CHARS = 100;

/** Tags as stored: trimmed, whitespace folded, lower-cased, each once, capped. */
export function cleanTags(tags: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const raw of tags) {
    const tag = truncate(foldWhitespace(raw).toLowerCase(), TAG_CHARS);
    if (tag !== '' && kept.size < TAGS_PER_ITEM) kept.add(tag);
  }
  return [...kept];
}

/** A list of clean tags in the stored form. */
export const storedTags = (tags: readonly string[]): string =>
  tags.length === 0 ? '' : `\n${tags.join('\n')}\n`;

/** The stored form "\nweb\nrust\n" as ['web', 'rust']. */
export const tagList = (stored: string): string[] => stored.split('\n').filter((t) => t !== '');
