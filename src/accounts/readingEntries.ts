import { TidingsError, isTidingsError } from '../errors.js';
import type { Metrics } from '../lib/metrics.js';
import { cleanTags, storedTags, tagList } from '../lib/readingTags.js';
import { addSavedUrl } from '../queue/add.js';
import { checkTitle, checkUrl } from '../queue/url.js';
import type { Store } from '../store/db.js';
import {
  type EntryFilter,
  type EntryRow,
  type EntryView,
  changeEntry,
  deleteEntry,
  entryById,
  entryIdByHash,
  entryIdByKey,
  entryPage,
} from '../store/readingEntries.js';
import { insertReadingItems, setReadingState } from '../store/readingList.js';
import { readingTagCounts } from '../store/readingListBrowse.js';
import { tagIdsOf, tagLabelOf } from '../store/readingTags.js';
import { noteToRead } from '../store/toRead.js';
import type { AccountId } from './authorize.js';

export type { EntryFilter, EntryRow, EntrySort, EntryView } from '../store/readingEntries.js';

/*
 * The reading list as the wallabag API's entries (issue 35, point 3): read, saved, changed and deleted by
 * an app. Archiving goes through store/readingList.ts setReadingState, as the web's and a digest's do, so
 * an entry archived anywhere is archived everywhere. A save is also queued as the person's own link
 * (queue/add.ts addSavedUrl, the one way in for every save), and its page read in the background.
 */

export interface EntryTag {
  id: number;
  label: string;
}

/** An entry with its tags' numbers. */
export interface Entry {
  row: EntryRow;
  tags: EntryTag[];
}

/** Entries with their tags' numbers, from a map of label to number. */
const numbered = (rows: readonly EntryRow[], ids: ReadonlyMap<string, number>): Entry[] =>
  rows.map((row) => ({
    row,
    tags: tagList(row.tags).map((label) => ({ id: ids.get(label) ?? 0, label })),
  }));

/** Entries with their tags' numbers, read (and given to labels that have none yet): one statement. */
async function withTags(store: Store, accountId: AccountId, rows: readonly EntryRow[]): Promise<Entry[]> {
  const ids = await tagIdsOf(
    store.db,
    accountId,
    rows.flatMap((r) => tagList(r.tags)),
  );
  return numbered(rows, ids);
}

/** Every tag of the account's entries, most used first, with its number. */
export async function accountTags(store: Store, accountId: AccountId): Promise<EntryTag[]> {
  const counts = await readingTagCounts(store.db, accountId, undefined);
  const ids = await tagIdsOf(
    store.db,
    accountId,
    counts.map((c) => c.tag),
  );
  return counts.map((c) => ({ id: ids.get(c.tag) ?? 0, label: c.tag }));
}

/**
 * A page of the account's entries and how many match the filter. On PostgreSQL the tags' numbers come
 * with the page (one round trip); a label that has no number yet, or SQLite, asks readingTags.ts.
 */
export async function listEntries(
  store: Store,
  accountId: AccountId,
  filter: EntryFilter,
  view: Omit<EntryView, 'tagNumbers'>,
): Promise<{ entries: Entry[]; total: number }> {
  const { rows, total, tagNumbers } = await entryPage(store.db, accountId, filter, {
    ...view,
    tagNumbers: store.engine === 'postgres',
  });
  const known =
    tagNumbers !== null && rows.every((r) => tagList(r.tags).every((label) => tagNumbers.has(label)));
  return {
    entries: known ? numbered(rows, tagNumbers) : await withTags(store, accountId, rows),
    total,
  };
}

/** One of the account's entries; `not_found` when it has none of that id. */
export async function entryOf(store: Store, accountId: AccountId, id: number): Promise<Entry> {
  const row = await entryById(store.db, accountId, id);
  if (row === null) throw new TidingsError('not_found', 'Entry not found');
  const [entry] = await withTags(store, accountId, [row]);
  if (entry === undefined) throw new TidingsError('not_found', 'Entry not found');
  return entry;
}

/** What a client changes of an entry; each unset stays. Tags are added to the entry's. */
export interface EntryEdit {
  title?: string;
  addTags?: readonly string[];
  archived?: boolean;
  starred?: boolean;
}

/** Changes one of the account's entries and answers it as it is then; `not_found` when it has none. */
export async function editEntry(
  store: Store,
  accountId: AccountId,
  id: number,
  edit: EntryEdit,
  now: Date,
): Promise<Entry> {
  const at = now.toISOString();
  const current = await entryById(store.db, accountId, id);
  if (current === null) throw new TidingsError('not_found', 'Entry not found');
  const tags =
    edit.addTags === undefined
      ? undefined
      : storedTags(cleanTags([...tagList(current.tags), ...edit.addTags]));
  const title = edit.title === undefined ? undefined : checkTitle(edit.title, current.url, 'shorten');
  await changeEntry(
    store.db,
    accountId,
    id,
    {
      ...(title === undefined ? {} : { title }),
      ...(tags === undefined || tags === current.tags ? {} : { tags }),
      ...(edit.starred === undefined ? {} : { starred: edit.starred }),
    },
    at,
  );
  if (edit.archived !== undefined) {
    await setReadingState(store.db, accountId, id, edit.archived ? 'archived' : 'unread', at);
  }
  return entryOf(store, accountId, id);
}

/** Takes one tag (by its number) off an entry; `not_found` when the entry or the tag is not the account's. */
export async function removeEntryTag(
  store: Store,
  accountId: AccountId,
  id: number,
  tagId: number,
  now: Date,
): Promise<Entry> {
  const current = await entryById(store.db, accountId, id);
  const label = await tagLabelOf(store.db, accountId, tagId);
  if (current === null || label === null) throw new TidingsError('not_found', 'Entry or tag not found');
  const tags = storedTags(tagList(current.tags).filter((t) => t !== label));
  if (tags !== current.tags) await changeEntry(store.db, accountId, id, { tags }, now.toISOString());
  return entryOf(store, accountId, id);
}

/** Deletes one of the account's entries and answers it as it was; `not_found` when it has none. */
export async function removeEntry(store: Store, accountId: AccountId, id: number): Promise<Entry> {
  const entry = await entryOf(store, accountId, id);
  if (!(await deleteEntry(store.db, accountId, id))) throw new TidingsError('not_found', 'Entry not found');
  return entry;
}

export interface EntrySave extends EntryEdit {
  url: string | undefined;
}

/**
 * A client's save (POST /api/entries.json): the link is queued as the person's own for the next digest
 * (addSavedUrl: validated there, a feed's queued copy becomes theirs) and is a reading-list entry, new or
 * the one the account has of that URL (then changed as asked). A full queue does not refuse the save: the
 * entry is still made, as a read-later app expects, and the digest takes the link when there is room.
 */
export async function saveEntry(
  store: Store,
  accountId: AccountId,
  save: EntrySave,
  options: { queueLimit: number; metrics?: Metrics | undefined },
  now: Date,
): Promise<Entry> {
  const checked = checkUrl(save.url);
  const title = checkTitle(save.title, checked.url, 'shorten');
  try {
    await addSavedUrl(
      store,
      accountId,
      { url: checked.url, title: save.title === undefined ? undefined : title, source: 'api' },
      { limit: options.queueLimit, metrics: options.metrics, via: 'api' },
    );
  } catch (err) {
    if (!isTidingsError(err, 'queue_full')) throw err;
  }
  const at = now.toISOString();
  let id = await entryIdByKey(store.db, accountId, checked.key);
  if (id === null) {
    await insertReadingItems(
      store.db,
      accountId,
      [
        {
          url: checked.url,
          urlKey: checked.key,
          title,
          state: 'unread',
          tags: '',
          savedAt: at,
          source: 'app',
          description: null,
          author: null,
          publishedAt: null,
          html: null,
          text: null,
        },
      ],
      at,
    ).catch(async (err: unknown) => {
      // Saved at once by another request: that entry is this one.
      if ((await entryIdByKey(store.db, accountId, checked.key)) === null) throw err;
    });
    id = await entryIdByKey(store.db, accountId, checked.key);
    noteToRead(store, 'imported');
  }
  if (id === null) throw new TidingsError('not_found', 'Entry not found');
  const edit: EntryEdit = {
    ...(save.title === undefined ? {} : { title: save.title }),
    ...(save.addTags === undefined ? {} : { addTags: save.addTags }),
    ...(save.archived === undefined ? {} : { archived: save.archived }),
    ...(save.starred === undefined ? {} : { starred: save.starred }),
  };
  return editEntry(store, accountId, id, edit, now);
}

/**
 * Which of these URLs (as saved, by the queue's key) and SHA-1 hashes of URLs the account has: the
 * entry's id, or null.
 */
export async function entriesExist(
  store: Store,
  accountId: AccountId,
  urls: readonly string[],
  hashes: readonly string[],
): Promise<{ urls: Map<string, number | null>; hashes: Map<string, number | null> }> {
  const byUrl = new Map<string, number | null>();
  for (const url of urls) {
    let key: string | null = null;
    try {
      key = checkUrl(url).key;
    } catch {
      key = null;
    }
    byUrl.set(url, key === null ? null : await entryIdByKey(store.db, accountId, key));
  }
  const byHash = new Map<string, number | null>();
  for (const h of hashes) byHash.set(h, await entryIdByHash(store.db, accountId, h));
  return { urls: byUrl, hashes: byHash };
}
