import type { Kysely } from 'kysely';
import type { Database, FeedPriority, QueueSource } from './schema.js';
import { now } from './db.js';
import { precompile } from './precompiled.js';

export interface SavedUrl {
  url: string;
  title: string;
}

// The queries of the API's request path are precompiled (see precompiled.ts).

const savedUrlsQuery = precompile((db, p: { accountId: number }) =>
  db.selectFrom('queue_items').select(['url', 'title']).where('account_id', '=', p.accountId).orderBy('id'),
);

/** The account's queue, oldest first, as the API shows it. */
export async function savedUrlsByAccount(db: Kysely<Database>, accountId: number): Promise<SavedUrl[]> {
  return (await savedUrlsQuery(db, { accountId })).rows;
}

const itemByKeyQuery = precompile((db, p: { accountId: number; urlKey: string }) =>
  db
    .selectFrom('queue_items')
    .select(['id', 'title', 'source'])
    .where('account_id', '=', p.accountId)
    .where('url_key', '=', p.urlKey),
);

/** The item waiting in the account's queue with this url_key: its id, title and source. */
export async function queueItemByKey(
  db: Kysely<Database>,
  accountId: number,
  urlKey: string,
): Promise<{ id: number; title: string; source: QueueSource } | null> {
  return (await itemByKeyQuery(db, { accountId, urlKey })).rows[0] ?? null;
}

const boundsQuery = precompile((db, p: { accountId: number }) =>
  db.selectNoFrom((eb) => {
    const items = eb.selectFrom('queue_items').where('account_id', '=', p.accountId);
    return [
      items.select((e) => e.fn.min('id').as('lo')).as('lo'),
      items.select((e) => e.fn.max('id').as('hi')).as('hi'),
    ];
  }),
);

/**
 * An upper bound of the queue's length that, unlike count(*), does not grow with the queue: ids are
 * distinct integers, so the queue holds at most max(id) − min(id) + 1 items (two index look-ups).
 */
export async function queueLengthBound(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = (await boundsQuery(db, { accountId })).rows[0];
  return row?.lo != null && row.hi != null ? row.hi - row.lo + 1 : 0;
}

const lengthQuery = precompile((db, p: { accountId: number }) =>
  db
    .selectFrom('queue_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', p.accountId),
);

/** The exact length of the queue; reads every item's index entry (see queueLengthBound). */
export async function queueLength(db: Kysely<Database>, accountId: number): Promise<number> {
  return (await lengthQuery(db, { accountId })).rows[0]?.n ?? 0;
}

/**
 * How many items from a feed were queued for the account at or after `since` (a store timestamp, see
 * db.ts `now`): what subscribing just put in the queue. A queue is bounded, so this reads little.
 */
export async function queuedFromFeedSince(
  db: Kysely<Database>,
  accountId: number,
  feedId: number,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('queue_items')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('feed_id', '=', feedId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * A validated, normalised item for the queue (see src/queue/enqueue.ts). A type, not an interface:
 * precompile's parameters must be a plain record.
 */
export type NewQueueItem = {
  url: string;
  urlKey: string;
  title: string;
  source: QueueSource;
  /** What a feed item brings along; null for saved URLs. */
  feedId: number | null;
  summary: string | null;
  publishedAt: string | null;
  /** A feed item's own image; null for saved URLs and items without one. */
  imageUrl: string | null;
};

const insertIfAbsentQuery = precompile((db, p: NewQueueItem & { accountId: number; at: string }) =>
  db
    .insertInto('queue_items')
    .values({
      account_id: p.accountId,
      url: p.url,
      url_key: p.urlKey,
      title: p.title,
      source: p.source,
      feed_id: p.feedId,
      summary: p.summary,
      published_at: p.publishedAt,
      image_url: p.imageUrl,
      created_at: p.at,
      updated_at: p.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'url_key']).doNothing())
    .returning('id'),
);

/** Adds the item unless one with its url_key is waiting; true when it was added. One statement. */
export async function createQueueItemIfAbsent(
  db: Kysely<Database>,
  accountId: number,
  item: NewQueueItem,
): Promise<boolean> {
  const { rows } = await insertIfAbsentQuery(db, { accountId, ...item, at: now() });
  return rows.length > 0;
}

const updateTitleQuery = precompile(
  (db, p: { accountId: number; itemId: number; title: string; at: string }) =>
    db
      .updateTable('queue_items')
      .set({ title: p.title, updated_at: p.at })
      .where('account_id', '=', p.accountId)
      .where('id', '=', p.itemId),
);

export async function updateQueueItemTitle(
  db: Kysely<Database>,
  accountId: number,
  itemId: number,
  title: string,
): Promise<void> {
  await updateTitleQuery(db, { accountId, itemId, title, at: now() });
}

/** A queued item with what its digest shows of it. */
export interface QueuedItem {
  id: number;
  url: string;
  title: string;
  source: QueueSource;
  feed_id: number | null;
  /** The reader's name for the feed (the subscription's title, else the feed's); null for saved URLs. */
  feed_title: string | null;
  summary: string | null;
  published_at: string | null;
  created_at: string;
  /** The page read for the item (see store/pageReads.ts); null until the reader links one. */
  page_id: number | null;
  /** A feed item's own image. */
  image_url: string | null;
}

/** The account's queue, oldest first, each item with the reader's name for its feed. */
function queuedItemsQuery(db: Kysely<Database>, accountId: number) {
  return queuedItems(db).where('q.account_id', '=', accountId).orderBy('q.id');
}

/** Queued items (`q`) as a QueuedItem, each with the reader's name for its feed. */
function queuedItems(db: Kysely<Database>) {
  return db
    .selectFrom('queue_items as q')
    .leftJoin('feeds as f', 'f.id', 'q.feed_id')
    .leftJoin('subscriptions as s', (join) =>
      join.onRef('s.feed_id', '=', 'q.feed_id').onRef('s.account_id', '=', 'q.account_id'),
    )
    .select((eb) => [
      'q.id',
      'q.url',
      'q.title',
      'q.source',
      'q.feed_id',
      eb.fn.coalesce('s.title', 'f.title').as('feed_title'),
      'q.summary',
      'q.published_at',
      'q.created_at',
      'q.page_id',
      'q.image_url',
    ]);
}

/** Removes items from the account's queue (the caller bumps its version in the same transaction). */
export async function deleteQueueItems(
  db: Kysely<Database>,
  accountId: number,
  itemIds: readonly number[],
): Promise<number> {
  return deleteQueueItemsOfAccounts(db, [accountId], itemIds);
}

/** Deletes one item of the account's queue; what it was (its URL and title), or null when there was none. */
export async function deleteQueueItemReturning(
  db: Kysely<Database>,
  accountId: number,
  itemId: number,
): Promise<{ url: string; title: string } | null> {
  const row = await db
    .deleteFrom('queue_items')
    .where('account_id', '=', accountId)
    .where('id', '=', itemId)
    .returning(['url', 'title'])
    .executeTakeFirst();
  return row ?? null;
}

/** A waiting item as a digest build reads it: the item, its page's canonical URL and its feed's share. */
export interface WaitingItem extends QueuedItem {
  /** The read page's canonical URL (same site only), else null. */
  canonical_url: string | null;
  /** The subscription's share of a digest (migration 0025); null for saved links. */
  per_digest: number | null;
  priority: FeedPriority | null;
  muted_until: string | null;
}

/**
 * What the next digests of several accounts choose from (a batch of builds): each one's waiting items,
 * oldest first, at most `limit` of each account (its oldest), in one statement; with the queue's whole
 * length. Accounts with an empty queue are absent.
 */
export async function waitingItemsOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
  limit: number,
): Promise<Map<number, { items: WaitingItem[]; length: number }>> {
  const byAccount = new Map<number, { items: WaitingItem[]; length: number }>();
  if (accountIds.length === 0) return byAccount;
  const ranked = db
    .selectFrom('queue_items as r')
    .select((eb) => [
      'r.id',
      eb.fn
        .agg<number | string>('row_number', [])
        .over((ob) => ob.partitionBy('r.account_id').orderBy('r.id'))
        .as('rank'),
      eb.fn
        .countAll<number | string>()
        .over((ob) => ob.partitionBy('r.account_id'))
        .as('length'),
    ])
    .where('r.account_id', 'in', accountIds)
    .as('w');
  const rows = await queuedItems(db)
    .innerJoin(ranked, 'w.id', 'q.id')
    .leftJoin('pages as p', 'p.id', 'q.page_id')
    .select(['q.account_id', 'w.length', 'p.canonical_url', 's.per_digest', 's.priority', 's.muted_until'])
    .where('w.rank', '<=', limit)
    .orderBy('q.account_id')
    .orderBy('q.id')
    .execute();
  for (const { account_id: accountId, length, ...item } of rows) {
    let queued = byAccount.get(accountId);
    if (queued === undefined) {
      queued = { items: [], length: Number(length) };
      byAccount.set(accountId, queued);
    }
    queued.items.push(item);
  }
  return byAccount;
}

/** Removes items from several accounts' queues (their versions bumped by the caller, as above). */
export async function deleteQueueItemsOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
  itemIds: readonly number[],
): Promise<number> {
  let deleted = 0;
  // In chunks: each id is a parameter.
  for (let i = 0; i < itemIds.length; i += 1000) {
    const result = await db
      .deleteFrom('queue_items')
      .where('account_id', 'in', accountIds)
      .where('id', 'in', itemIds.slice(i, i + 1000))
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/** A page of the account's queue in the order digests take it (oldest first), for the web app. */
export async function queueItemsPage(
  db: Kysely<Database>,
  accountId: number,
  page: { offset: number; limit: number },
): Promise<QueuedItem[]> {
  return queuedItemsQuery(db, accountId).limit(page.limit).offset(page.offset).execute();
}

/**
 * Items waiting over all queues, and in the longest one: one query over the (account_id, id) index, for
 * the metrics' scrape.
 */
export async function queueTotals(db: Kysely<Database>): Promise<{ items: number; longest: number }> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('queue_items')
        .select((e) => e.fn.countAll<number>().as('n'))
        .groupBy('account_id')
        .as('queues'),
    )
    .select((eb) => [
      // PostgreSQL sums bigints as numeric, which its driver returns as a string.
      eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('items'),
      eb.fn.coalesce(eb.fn.max('n'), eb.lit(0)).as('longest'),
    ])
    .executeTakeFirst();
  return { items: Number(row?.items ?? 0), longest: row?.longest ?? 0 };
}

/** How many items wait in each account's queue (accounts with none are absent). */
export async function queueLengths(db: Kysely<Database>): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('queue_items')
    .select((eb) => ['account_id', eb.fn.countAll<number | string | bigint>().as('n')])
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((r) => [r.account_id, Number(r.n)]));
}

/** Points the account's waiting item of `urlKey` at a page it brought along (a newsletter's body). */
export async function setQueueItemPage(
  db: Kysely<Database>,
  accountId: number,
  urlKey: string,
  pageId: number,
): Promise<void> {
  await db
    .updateTable('queue_items')
    .set({ page_id: pageId })
    .where('account_id', '=', accountId)
    .where('url_key', '=', urlKey)
    .execute();
}
