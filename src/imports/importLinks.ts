import type { AccountId } from '../lib/authorized.js';
import { type Store, now } from '../store/db.js';
import { insertReadingItems, mergeIntoKnownRow, readingItemsByKey } from '../store/readingList.js';
import { type CleanLink, mergeIntoKnown, sameMerge } from './merge.js';
import { type PreparedImport, prepareImport } from './prepare.js';
import { type BadRow, IMPORT_LIMITS, type ImportFormat } from './record.js';

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

/** Keys handled per transaction (and per message from the import thread). */
export const IMPORT_BATCH = 500;

/**
 * Imports an export file into the account's reading list (docs/reading-list.md), in this thread: what
 * `tidings import` runs (a process of its own, with no other request to keep waiting). The file is read
 * whole first (a file past a limit is refused before anything is written: `limit_reached`; one that is not
 * an export: `invalid_input`), then written in batches, each in its own transaction; running it again on
 * the same file changes nothing (every link is found and merged into itself), so a cut-short import is
 * finished by importing the file again. The web app reads the file in a thread: imports/importThread.ts.
 */
export async function importReadingList(
  store: Store,
  accountId: AccountId,
  bytes: Uint8Array,
  format: ImportFormat | 'auto' = 'auto',
): Promise<ImportCounts> {
  const at = now();
  const prepared = prepareImport(bytes, format, at);
  const written = { imported: 0, merged: 0 };
  for (let i = 0; i < prepared.links.length; i += IMPORT_BATCH) {
    const done = await writeImportBatch(
      store,
      accountId,
      prepared.format,
      prepared.links.slice(i, i + IMPORT_BATCH),
      at,
    );
    written.imported += done.imported;
    written.merged += done.merged;
  }
  return importCounts(prepared, written);
}

/** The counts of an import, from its file read and what was written. */
export const importCounts = (
  prepared: Omit<PreparedImport, 'links'>,
  written: { imported: number; merged: number },
): ImportCounts => ({
  format: prepared.format,
  rows: prepared.rows,
  imported: written.imported,
  merged: written.merged,
  duplicates: prepared.duplicates,
  bad: prepared.bad.length,
  badExamples: prepared.bad.slice(0, IMPORT_LIMITS.badExamples),
});

/**
 * One batch of a prepared file written in one transaction: links the account does not have are added,
 * the others merged into its items (their state left as the reader set it).
 */
export async function writeImportBatch(
  store: Store,
  accountId: AccountId,
  source: ImportFormat,
  batch: readonly CleanLink[],
  at: string,
): Promise<{ imported: number; merged: number }> {
  return store.db.transaction().execute(async (trx) => {
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
    let merged = 0;
    for (const link of batch) {
      const item = known.get(link.urlKey);
      if (item === undefined) continue;
      merged++;
      const into = mergeIntoKnown(item, link);
      if (!sameMerge(item, into)) await mergeIntoKnownRow(trx, accountId, item.id, into, at);
    }
    return { imported: fresh.length, merged };
  });
}

/** The counts in words, as the CLI prints them and the web app shows them. */
export function countsWords(c: ImportCounts): string {
  const more = c.bad > c.badExamples.length ? ` (the first ${c.badExamples.length} below)` : '';
  return (
    `Imported ${c.imported} links from a ${c.format} export of ${c.rows} rows into the reading list: ` +
    `${c.merged} already there (merged), ${c.duplicates} duplicates within the file, ${c.bad} bad rows skipped${c.bad > 0 ? more : ''}.`
  );
}
