import { createHash } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { ReadingListTable, ReadingSource, ReadingState } from './schemaReadingList.js';

export type ReadingRow = Selectable<ReadingListTable>;

/** What the importer needs of an item the account already has, to merge into it. */
export type ReadingKnown = Pick<
  ReadingRow,
  | 'id'
  | 'url_key'
  | 'title'
  | 'url'
  | 'tags'
  | 'saved_at'
  | 'description'
  | 'author'
  | 'published_at'
  | 'html'
  | 'text'
>;

/** The account's items of these keys (at most a few hundred keys a call: one import batch). */
export async function readingItemsByKey(
  db: Kysely<Database>,
  accountId: number,
  urlKeys: readonly string[],
): Promise<ReadingKnown[]> {
  if (urlKeys.length === 0) return [];
  return db
    .selectFrom('reading_list')
    .select(['id', 'url_key', 'title', 'url', 'tags', 'saved_at', 'description', 'author', 'published_at'])
    .select(['html', 'text'])
    .where('account_id', '=', accountId)
    .where('url_key', 'in', urlKeys)
    .execute();
}

export interface NewReadingItem {
  url: string;
  urlKey: string;
  title: string;
  state: ReadingState;
  /** As stored: see ReadingListTable.tags. */
  tags: string;
  savedAt: Timestamp;
  source: ReadingSource;
  description: string | null;
  author: string | null;
  publishedAt: Timestamp | null;
  html: string | null;
  text: string | null;
}

/** wallabag's hashed_url of a URL as saved: its SHA-1, hex (ReadingListTable.url_hash). */
export const urlHash = (url: string): string => createHash('sha1').update(url).digest('hex');

/** Adds new items (keys the account does not have yet: the caller checked, in the same transaction). */
export async function insertReadingItems(
  db: Kysely<Database>,
  accountId: number,
  items: readonly NewReadingItem[],
  at: Timestamp,
): Promise<void> {
  if (items.length === 0) return;
  await db
    .insertInto('reading_list')
    .values(
      items.map((i) => ({
        account_id: accountId,
        url: i.url,
        url_key: i.urlKey,
        url_hash: urlHash(i.url),
        title: i.title,
        state: i.state,
        tags: i.tags,
        saved_at: i.savedAt,
        source: i.source,
        description: i.description,
        author: i.author,
        published_at: i.publishedAt,
        html: i.html,
        text: i.text,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}

/** What an import may change of an item the account has: never its state (the reader's own word). */
export type ReadingMerge = Pick<NewReadingItem, 'title' | 'tags' | 'savedAt' | 'description' | 'author'> &
  Pick<NewReadingItem, 'publishedAt' | 'html' | 'text'>;

export async function mergeIntoKnownRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  merged: ReadingMerge,
  at: Timestamp,
): Promise<void> {
  await db
    .updateTable('reading_list')
    .set({
      title: merged.title,
      tags: merged.tags,
      saved_at: merged.savedAt,
      description: merged.description,
      author: merged.author,
      published_at: merged.publishedAt,
      html: merged.html,
      text: merged.text,
      updated_at: at,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export interface ReadingFilter {
  state?: ReadingState;
  /** One tag, lower-cased. */
  tag?: string;
}

/** `tags LIKE` this finds a tag (LIKE's wildcards in it escaped); with `escape '\\'`. */
export const tagPattern = (tag: string): string => `%\n${tag.replace(/[\\%_]/g, (c) => `\\${c}`)}\n%`;

function filtered(db: Kysely<Database>, accountId: number, filter: ReadingFilter) {
  return db
    .selectFrom('reading_list as r')
    .where('r.account_id', '=', accountId)
    .$if(filter.state !== undefined, (qb) => qb.where('r.state', '=', filter.state ?? 'unread'))
    .$if(filter.tag !== undefined, (qb) =>
      qb.where(sql<boolean>`r.tags like ${tagPattern(filter.tag ?? '')} escape '\\'`),
    );
}

export type ReadingListed = Pick<
  ReadingRow,
  'id' | 'url' | 'title' | 'state' | 'tags' | 'saved_at' | 'source'
> & {
  /** The page read for it, when read; or the item's own readable HTML. */
  page_id: number | null;
  readable: number;
};

/** A page of the account's items, newest saved first, and how many match. */
export async function readingListPage(
  db: Kysely<Database>,
  accountId: number,
  filter: ReadingFilter,
  page: { limit: number; offset: number },
): Promise<{ items: ReadingListed[]; total: number }> {
  const items = await filtered(db, accountId, filter)
    .leftJoin('pages as p', (j) => j.onRef('p.id', '=', 'r.page_id').on('p.state', '=', 'read'))
    .select(['r.id', 'r.url', 'r.title', 'r.state', 'r.tags', 'r.saved_at', 'r.source', 'p.id as page_id'])
    .select(sql<number>`case when r.html is not null then 1 else 0 end`.as('readable'))
    .orderBy('r.saved_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const counted = await filtered(db, accountId, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return { items, total: Number(counted?.n ?? 0) };
}

/** One item of the account (its own readable HTML included); null when it has none of that id. */
export async function readingItem(
  db: Kysely<Database>,
  accountId: number,
  id: number,
): Promise<ReadingRow | null> {
  const row = await db
    .selectFrom('reading_list')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Archives or unarchives an item, whoever asks (the web, a digest's link, a wallabag client): the one
 * place `state` and `archived_at` change together. An item already in that state keeps its archived_at.
 * False when the account has no item of that id.
 */
export async function setReadingState(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  state: ReadingState,
  at: Timestamp,
): Promise<boolean> {
  const archivedAt =
    state === 'archived' ? sql<string>`case when state = 'archived' then archived_at else ${at} end` : null;
  const result = await db
    .updateTable('reading_list')
    .set({ state, archived_at: archivedAt, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** How many items the account has, by state. */
export async function readingListCounts(
  db: Kysely<Database>,
  accountId: number,
): Promise<Record<ReadingState, number>> {
  const rows = await db
    .selectFrom('reading_list')
    .select(['state', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('account_id', '=', accountId)
    .groupBy('state')
    .execute();
  const counts: Record<ReadingState, number> = { unread: 0, archived: 0 };
  for (const r of rows) counts[r.state] = Number(r.n);
  return counts;
}
