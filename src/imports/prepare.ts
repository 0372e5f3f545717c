import { isTidingsError } from '../errors.js';
import { checkTitle, checkUrl } from '../queue/url.js';
import { parseExport } from './detect.js';
import { type CleanLink, mergeCopies, readableOf, shortText, storedTags, tagsOf } from './merge.js';
import { type BadRow, type ImportFormat, type ImportedLink, checkRowCount, isBadRow } from './record.js';

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
  const bad: BadRow[] = [];
  const byKey = new Map<string, CleanLink>();
  let rows = 0;
  let duplicates = 0;
  // Row by row in the file's order: a link's HTML is sanitised (cleanLink) before the next row is read,
  // so that only what is kept stays in memory (issue 33, 11), and bad rows are reported in order.
  for (const row of parsed.rows) {
    checkRowCount(++rows);
    if (isBadRow(row)) {
      bad.push(row);
      continue;
    }
    const { where, link } = row;
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
    rows,
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
