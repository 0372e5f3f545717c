import { capHtml } from '../lib/capHtml.js';
import { MAX_HTML_CHARS, MAX_PARSE_CHARS, MAX_TEXT_CHARS } from '../articles/html.js';
import { sanitizeArticle } from '../lib/sanitize.js';
import { scanMarkup } from '../articles/scanMarkup.js';
import { foldWhitespace, htmlToText, truncate } from '../lib/text.js';
import type { ReadingKnown, ReadingMerge } from '../store/readingList.js';
import type { ImportedLink } from './record.js';

/** Characters kept of an export's description and author. */
const DESCRIPTION_CHARS = 1000;
const AUTHOR_CHARS = 200;

/** Tags as stored (lib/readingTags.ts): the import's names for the one rule. */
import { cleanTags as tagsOf, storedTags, tagList } from '../lib/readingTags.js';
export { tagsOf, storedTags, tagList };

/**
 * An export's readable HTML as the reader keeps a page's: the same first MAX_PARSE_CHARS read, scanned
 * before it is parsed (past a page's nesting or elements the link is kept without it, and its page is
 * read as any other link's), sanitised, capped, with its plain text.
 */
export function readableOf(html: string | null, url: string): { html: string | null; text: string | null } {
  if (html === null || !/\S/.test(html)) return { html: null, text: null };
  const source = html.length > MAX_PARSE_CHARS ? html.slice(0, MAX_PARSE_CHARS) : html;
  if (scanMarkup(source).past !== null) return { html: null, text: null };
  const kept = capHtml(sanitizeArticle(source, url), MAX_HTML_CHARS).html;
  const text = htmlToText(kept);
  return text === '' ? { html: null, text: null } : { html: kept, text: truncate(text, MAX_TEXT_CHARS) };
}

export const shortText = (value: string | null, chars: 'description' | 'author'): string | null => {
  const text = foldWhitespace(value ?? '');
  return text === '' ? null : truncate(text, chars === 'description' ? DESCRIPTION_CHARS : AUTHOR_CHARS);
};

/** A link of the file as it will be stored (its URL checked, its fields cleaned). */
export interface CleanLink extends ReadingMerge {
  url: string;
  urlKey: string;
  archived: boolean;
}

/**
 * Two copies of one link within a file, merged: tags joined, the earliest date, the first title that is
 * not the URL, what either has of the rest; archived when either copy is (a copy archived at the service
 * was read there).
 */
export function mergeCopies(a: CleanLink, b: CleanLink): CleanLink {
  return {
    ...a,
    ...mergeFields(a, b),
    archived: a.archived || b.archived,
  };
}

/**
 * A link merged into what the account has: the same rule, the item's own title first; its state is left
 * as it is (the reader's word here is newer than the file's).
 */
export function mergeIntoKnown(known: ReadingKnown, link: CleanLink): ReadingMerge {
  return mergeFields(
    {
      url: known.url,
      title: known.title,
      tags: known.tags,
      savedAt: known.saved_at,
      description: known.description,
      author: known.author,
      publishedAt: known.published_at,
      html: known.html,
      text: known.text,
    },
    link,
  );
}

/** Whether merging changed anything (an import run again changes nothing). */
export const sameMerge = (known: ReadingKnown, merged: ReadingMerge): boolean =>
  known.title === merged.title &&
  known.tags === merged.tags &&
  known.saved_at === merged.savedAt &&
  known.description === merged.description &&
  known.author === merged.author &&
  known.published_at === merged.publishedAt &&
  known.html === merged.html;

function mergeFields(a: ReadingMerge & { url: string }, b: ReadingMerge): ReadingMerge {
  const aHasHtml = a.html !== null;
  return {
    title: a.title === a.url || a.title === '' ? b.title : a.title,
    tags: storedTags(tagsOf([...tagList(a.tags), ...tagList(b.tags)])),
    savedAt: a.savedAt <= b.savedAt ? a.savedAt : b.savedAt,
    description: a.description ?? b.description,
    author: a.author ?? b.author,
    publishedAt: a.publishedAt ?? b.publishedAt,
    html: aHasHtml ? a.html : b.html,
    text: aHasHtml ? a.text : b.text,
  };
}

export type { ImportedLink };
