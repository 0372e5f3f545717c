import { type Kysely, sql } from 'kysely';
import type { Database, QueueSource } from './schema.js';
import { type Engine, now } from './db.js';
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
    .select(['id', 'title'])
    .where('account_id', '=', p.accountId)
    .where('url_key', '=', p.urlKey),
);

export async function queueItemByKey(
  db: Kysely<Database>,
  accountId: number,
  urlKey: string,
): Promise<{ id: number; title: string } | null> {
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

/** A row for createQueueItems: an item and its account. */
export type NewQueueRow = NewQueueItem & { accountId: number };

/** A waiting item found by its account and url_key. */
export interface WaitingByKey {
  accountId: number;
  urlKey: string;
  id: number;
  title: string;
}

/**
 * The waiting items among the given (account, url_key) pairs. On PostgreSQL one statement for them all;
 * on SQLite one index look-up each (statements cost no round trip there).
 */
export async function queueItemsByKeys(
  db: Kysely<Database>,
  engine: Engine,
  keys: readonly { accountId: number; urlKey: string }[],
): Promise<WaitingByKey[]> {
  if (engine === 'sqlite' || keys.length === 1) {
    const found: WaitingByKey[] = [];
    for (const { accountId, urlKey } of keys) {
      const row = await queueItemByKey(db, accountId, urlKey);
      if (row !== null) found.push({ accountId, urlKey, ...row });
    }
    return found;
  }
  if (keys.length === 0) return [];
  const { rows } = await sql<WaitingByKey>`
    select q.account_id as "accountId", q.url_key as "urlKey", q.id, q.title
    from unnest(${keys.map((k) => k.accountId)}::int[], ${keys.map((k) => k.urlKey)}::text[]) as k(account_id, url_key)
    join queue_items q on q.account_id = k.account_id and q.url_key = k.url_key`.execute(db);
  return rows;
}

/**
 * Inserts the rows, in the order given (ids follow it), skipping any whose url_key is already waiting in
 * its account's queue; returns how many were inserted. On PostgreSQL one statement for them all.
 */
export async function createQueueItems(
  db: Kysely<Database>,
  engine: Engine,
  rows: readonly NewQueueRow[],
): Promise<number> {
  if (engine === 'sqlite' || rows.length === 1) {
    let inserted = 0;
    for (const { accountId, ...item } of rows)
      if (await createQueueItemIfAbsent(db, accountId, item)) inserted++;
    return inserted;
  }
  if (rows.length === 0) return 0;
  return (await insertRows(rows).execute(db)).rows.length;
}

/** PostgreSQL's one statement for createQueueItems. */
function insertRows(rows: readonly NewQueueRow[]) {
  const at = now();
  const column = <T>(pick: (r: NewQueueRow) => T): T[] => rows.map(pick);
  return sql<{ id: number }>`
    insert into queue_items
      (account_id, url, url_key, title, source, feed_id, summary, published_at, image_url, created_at, updated_at)
    select r.account_id, r.url, r.url_key, r.title, r.source, r.feed_id, r.summary, r.published_at, r.image_url,
      ${at}, ${at}
    from unnest(
      ${column((r) => r.accountId)}::int[], ${column((r) => r.url)}::text[], ${column((r) => r.urlKey)}::text[],
      ${column((r) => r.title)}::text[], ${column((r) => r.source)}::text[], ${column((r) => r.feedId)}::int[],
      ${column((r) => r.summary)}::text[], ${column((r) => r.publishedAt)}::text[],
      ${column((r) => r.imageUrl)}::text[]
    ) with ordinality as r(account_id, url, url_key, title, source, feed_id, summary, published_at, image_url, n)
    order by r.n
    on conflict (account_id, url_key) do nothing
    returning id`;
}

/**
 * createQueueItems, and the rows' keys that were already waiting (their items as they were): on
 * PostgreSQL one statement (one round trip); on SQLite the insert of each row and a look-up for each
 * one skipped. The rows' keys must be distinct.
 */
export async function createQueueItemsReadingWaiting(
  db: Kysely<Database>,
  engine: Engine,
  rows: readonly NewQueueRow[],
): Promise<{ inserted: number; waiting: WaitingByKey[] }> {
  if (engine === 'sqlite') {
    const waiting: WaitingByKey[] = [];
    let inserted = 0;
    for (const { accountId, ...item } of rows) {
      if (await createQueueItemIfAbsent(db, accountId, item)) inserted++;
      else {
        const row = await queueItemByKey(db, accountId, item.urlKey);
        if (row !== null) waiting.push({ accountId, urlKey: item.urlKey, ...row });
      }
    }
    return { inserted, waiting };
  }
  if (rows.length === 0) return { inserted: 0, waiting: [] };
  const { rows: found } = await sql<{ inserted: number; waiting: WaitingByKey[] }>`
    with waiting as (
      select q.account_id as "accountId", q.url_key as "urlKey", q.id, q.title
      from unnest(${rows.map((r) => r.accountId)}::int[], ${rows.map((r) => r.urlKey)}::text[])
        as k(account_id, url_key)
      join queue_items q on q.account_id = k.account_id and q.url_key = k.url_key
    ), inserted as (${insertRows(rows)})
    select (select count(*) from inserted) as inserted,
      (select coalesce(json_agg(waiting), '[]') from waiting) as waiting`.execute(db);
  return found[0] ?? { inserted: 0, waiting: [] };
}

/**
 * queueLengthBound for each of the accounts (see there); on PostgreSQL one statement for them all.
 */
export async function queueLengthBounds(
  db: Kysely<Database>,
  engine: Engine,
  accountIds: readonly number[],
): Promise<Map<number, number>> {
  const bounds = new Map<number, number>();
  if (engine === 'sqlite' || accountIds.length === 1) {
    for (const id of accountIds) bounds.set(id, await queueLengthBound(db, id));
    return bounds;
  }
  if (accountIds.length === 0) return bounds;
  const { rows } = await sql<{ id: number; lo: number | null; hi: number | null }>`
    select k.id,
      (select min(q.id) from queue_items q where q.account_id = k.id) as lo,
      (select max(q.id) from queue_items q where q.account_id = k.id) as hi
    from unnest(${accountIds}::int[]) as k(id)`.execute(db);
  for (const r of rows) bounds.set(r.id, r.lo !== null && r.hi !== null ? r.hi - r.lo + 1 : 0);
  return bounds;
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

/** What each of several accounts' next digest takes from its queue, and the whole queue's length. */
export interface OldestQueued {
  items: QueuedItem[];
  length: number;
}

/**
 * What the next digests of several accounts take (a batch of builds): each one's oldest queued items, up
 * to its own maximum (digest_max_items), oldest first, with the length of its whole queue; one statement.
 * Accounts with an empty queue are absent.
 */
export async function oldestQueueItemsOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, OldestQueued>> {
  const byAccount = new Map<number, OldestQueued>();
  if (accountIds.length === 0) return byAccount;
  const ranked = db
    .selectFrom('queue_items as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select((eb) => [
      'r.id',
      'a.digest_max_items as max_items',
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
    .select(['q.account_id', 'w.length'])
    .whereRef('w.rank', '<=', 'w.max_items')
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
