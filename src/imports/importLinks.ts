import type { AccountId } from '../lib/authorized.js';
import { type Store, now } from '../store/db.js';
import { insertReadingItems, mergeIntoKnownRow, readingItemsByKey } from '../store/readingList.js';
import { noteToRead } from '../store/toRead.js';
import { type CleanLink, mergeIntoKnown, sameMerge } from './merge.js';
import { IMPORT_BATCH, type ImportCounts, importCounts } from './counts.js';
import { prepareImport } from './prepare.js';
import type { ImportFormat } from './record.js';

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

/**
 * One batch of a prepared file written in one transaction: links the account does not have are added,
 * the others merged into its items (their state left as the reader set it). New links wake this
 * process's reading-list reader (store/toRead.ts). The one way an import writes, from a file on the
 * command line or an upload.
 */
export async function writeImportBatch(
  store: Store,
  accountId: AccountId,
  source: ImportFormat,
  batch: readonly CleanLink[],
  at: string,
): Promise<{ imported: number; merged: number }> {
  const done = await store.db.transaction().execute(async (trx) => {
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
  // Committed: this process's reading-list reader reads the new links' pages now, not at its next poll.
  if (done.imported > 0) noteToRead(store, 'imported');
  return done;
}
