import { isTidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import { checkTitle, checkUrl } from '../queue/url.js';
import { type Store, now } from '../store/db.js';
import { insertReadingItems, mergeIntoKnownRow, readingItemsByKey } from '../store/readingList.js';
import type { ReadingSource } from '../store/schemaReadingList.js';
import { parseExport } from './detect.js';
import {
  type CleanLink,
  mergeCopies,
  mergeIntoKnown,
  readableOf,
  sameMerge,
  shortText,
  storedTags,
  tagsOf,
} from './merge.js';
import { type BadRow, IMPORT_LIMITS, type ImportFormat, type ImportedLink } from './record.js';

/** What an import did, as the CLI prints it and the web shows it. */
export interface ImportCounts {
  format: ImportFormat;
  /** Links the file lists, bad ones included. */
  rows: number;
  /** New items of the reading list. */
  imported: number;
  /** Links the account had already: merged into its item (tags joined, the earliest date). */
  merged: number;
  /** Further copies of a link within the file (merged into its first). */
  duplicates: number;
  /** Rows that could not be read or whose URL is not http(s); a few of them with where and why. */
  bad: number;
  badExamples: BadRow[];
}

/** Keys handled per transaction. */
const BATCH = 500;

/**
 * Imports an export file into the account's reading list (docs/reading-list.md). The file is read whole
 * first (a file past a limit is refused before anything is written: `limit_reached`; one that is not an
 * export: `invalid_input`), then written in batches, each in its own transaction; running it again on the
 * same file changes nothing (every link is found and merged into itself), so a cut-short import is finished
 * by importing the file again.
 */
export async function importReadingList(
  store: Store,
  accountId: AccountId,
  bytes: Uint8Array,
  format: ImportFormat | 'auto' = 'auto',
): Promise<ImportCounts> {
  const parsed = parseExport(bytes, format);
  const at = now();
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
  const source: ReadingSource = parsed.format;
  let imported = 0;
  let merged = 0;
  const links = [...byKey.values()];
  for (let i = 0; i < links.length; i += BATCH) {
    const batch = links.slice(i, i + BATCH);
    await store.db.transaction().execute(async (trx) => {
      const known = new Map(
        (
          await readingItemsByKey(
            trx,
            accountId,
            batch.map((l) => l.urlKey),
          )
        ).map((k) => [k.url_key, k]),
      );
      const fresh = batch.filter((l) => !known.has(l.urlKey));
      await insertReadingItems(
        trx,
        accountId,
        fresh.map((l) => ({ ...l, state: l.archived ? 'archived' : 'unread', source })),
        at,
      );
      imported += fresh.length;
      for (const link of batch) {
        const item = known.get(link.urlKey);
        if (item === undefined) continue;
        merged++;
        const into = mergeIntoKnown(item, link);
        if (!sameMerge(item, into)) await mergeIntoKnownRow(trx, accountId, item.id, into, at);
      }
    });
  }
  return {
    format: parsed.format,
    rows: parsed.links.length + parsed.bad.length,
    imported,
    merged,
    duplicates,
    bad: bad.length,
    badExamples: bad.slice(0, IMPORT_LIMITS.badExamples),
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
