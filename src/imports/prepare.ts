import { isTidingsError } from '../errors.js';
import { checkTitle, checkUrl } from '../queue/url.js';
import { parseExport } from './detect.js';
import { type CleanLink, mergeCopies, readableOf, shortText, storedTags, tagsOf } from './merge.js';
import type { BadRow, ImportFormat, ImportedLink } from './record.js';

/**
 * An export file read and cleaned, before anything is written: every link's URL checked, its fields
 * cleaned and its readable HTML sanitised, copies within the file merged. This is the part of an import
 * that costs CPU (a 50 MB file takes seconds); it touches no database, so the web app runs it in a thread
 * of its own (imports/importThread.ts) while `tidings import` runs it in place.
 */
export interface PreparedImport {
  format: ImportFormat;
  /** Links the file lists, bad ones included. */
  rows: number;
  /** One per link (copies within the file merged into the first), in the file's order. */
  links: CleanLink[];
  /** Further copies of a link within the file. */
  duplicates: number;
  bad: BadRow[];
}

/**
 * Reads the file (`limit_reached` past a limit, `invalid_input` when it is not an export); `at` is the
 * saved date of links the file gives none.
 */
export function prepareImport(bytes: Uint8Array, format: ImportFormat | 'auto', at: string): PreparedImport {
  const parsed = parseExport(bytes, format);
  const bad = [...parsed.bad];
  const byKey = new Map<string, CleanLink>();
  let duplicates = 0;
  for (const { where, link } of parsed.links) {
    let clean: CleanLink;
    try {
      clean = cleanLink(link, at);
    } catch (err) {
      if (!isTidingsError(err)) throw err;
      bad.push({ where, why: err.message });
      continue;
    }
    const first = byKey.get(clean.urlKey);
    if (first !== undefined) duplicates++;
    byKey.set(clean.urlKey, first === undefined ? clean : mergeCopies(first, clean));
  }
  return {
    format: parsed.format,
    rows: parsed.links.length + parsed.bad.length,
    links: [...byKey.values()],
    duplicates,
    bad,
  };
}

/** A link's URL checked (http(s), at most 2,048 characters: the queue's rule) and its fields cleaned. */
function cleanLink(link: ImportedLink, at: string): CleanLink {
  const { url, key } = checkUrl(link.url);
  const readable = readableOf(link.html, url);
  return {
    url,
    urlKey: key,
    title: checkTitle(link.title, url, 'shorten'),
    tags: storedTags(tagsOf(link.tags)),
    savedAt: link.savedAt ?? at,
    archived: link.archived,
    description: shortText(link.description, 'description'),
    author: shortText(link.author, 'author'),
    publishedAt: link.publishedAt,
    html: readable.html,
    text: readable.text,
  };
}
