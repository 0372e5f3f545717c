import { type Kysely, sql } from 'kysely';
import type { Database, QueueSource } from './schema.js';
import { type Engine, now } from './db.js';
import {
  type NewQueueItem,
  createQueueItemIfAbsent,
  queueItemByKey,
  queueLengthBound,
} from './queueItems.js';

/*
 * The queue_items writes of a group-commit batch (queue/writer.ts): a batch's waiting items read by key, its
 * new items inserted in one statement, the queues' length bounds. (The table's other reads and writes are in
 * queueItems.ts.)
 */

/** A row for createQueueItems: an item and its account. */
export type NewQueueRow = NewQueueItem & { accountId: number };

/** A waiting item found by its account and url_key. */
export interface WaitingByKey {
  accountId: number;
  urlKey: string;
  id: number;
  title: string;
  source: QueueSource;
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
    select q.account_id as "accountId", q.url_key as "urlKey", q.id, q.title, q.source
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
  const { rows: found } = await insertReadingWaitingQuery(rows).execute(db);
  return found[0] ?? { inserted: 0, waiting: [] };
}

/** PostgreSQL's one statement for createQueueItemsReadingWaiting. */
function insertReadingWaitingQuery(rows: readonly NewQueueRow[]) {
  return sql<{ inserted: number; waiting: WaitingByKey[] }>`
    with waiting as (
      select q.account_id as "accountId", q.url_key as "urlKey", q.id, q.title, q.source
      from unnest(${rows.map((r) => r.accountId)}::int[], ${rows.map((r) => r.urlKey)}::text[])
        as k(account_id, url_key)
      join queue_items q on q.account_id = k.account_id and q.url_key = k.url_key
    ), inserted as (${insertRows(rows)})
    select (select count(*) from inserted) as inserted,
      (select coalesce(json_agg(json_build_object('accountId', "accountId", 'urlKey', "urlKey", 'id', id, 'title', title, 'source', source)), '[]')
        from waiting) as waiting`;
}

/**
 * Makes waiting items a person's own saves (queue/plan.ts: planQueue's `adopts`), in the order given: each
 * row is deleted and inserted again with the save's source and title, under a new id (a queue is taken in
 * id order: the item takes its place among the saved links as if saved now), with its feed, summary,
 * publication time, image and page kept. Deleted and inserted, not updated, so that everything keyed by
 * the item's id (its search document: migration 0015's triggers) follows. Returns how many were moved.
 */
export async function adoptQueueItems(
  db: Kysely<Database>,
  accountId: number,
  items: readonly { id: number; title: string; source: QueueSource }[],
): Promise<number> {
  const at = now();
  let moved = 0;
  for (const item of items) {
    const old = await db
      .deleteFrom('queue_items')
      .where('account_id', '=', accountId)
      .where('id', '=', item.id)
      .returningAll()
      .executeTakeFirst();
    if (old === undefined) continue;
    await db
      .insertInto('queue_items')
      .values({
        account_id: accountId,
        url: old.url,
        url_key: old.url_key,
        title: item.title,
        source: item.source,
        feed_id: old.feed_id,
        summary: old.summary,
        published_at: old.published_at,
        image_url: old.image_url,
        page_id: old.page_id,
        created_at: at,
        updated_at: at,
      })
      .execute();
    moved++;
  }
  return moved;
}

/** A queue createQueueItemsAtOnce writes to: its account, its offers, and its version expected after them. */
export interface QueueAdvance {
  accountId: number;
  changes: number;
  version: number;
}

/**
 * The SQLSTATE of migration 0023's function (as 0035 replaced it) when a URL saved with a title, or one a
 * feed queued, was waiting (all rolled back).
 */
const TITLED_WAITING = 'TDW01';

/**
 * PostgreSQL: the API's usual save transaction in one statement, a call of migration 0023's function (see
 * there, and 0035). The queues (in account id order) are locked and their versions advanced by their
 * changes; then, only if each is at the version expected, the rows are inserted in order (a URL already
 * waiting is skipped), and the skipped ones read with their items, as createQueueItemsReadingWaiting does.
 * Null when the versions were not those expected (only the versions were written), or when a row whose
 * `titled` is true, or whose source is not the waiting item's, was waiting (nothing was written): the
 * caller must then plan from what it reads.
 * `db` is the store's pool, never a transaction: the call is one (store/writeTracking.ts may send it twice).
 */
export async function createQueueItemsAtOnce(
  db: Kysely<Database>,
  queues: readonly QueueAdvance[],
  rows: readonly NewQueueRow[],
  titled: readonly boolean[],
): Promise<{ inserted: number; waiting: WaitingByKey[] } | null> {
  const at = now();
  const column = <T>(pick: (r: NewQueueRow) => T): T[] => rows.map(pick);
  try {
    const { rows: answer } = await sql<{ wrote: boolean; inserted: number; waiting: WaitingByKey[] | null }>`
      select * from tidings_enqueue_at_once(
        ${queues.map((q) => q.accountId)}::int[], ${queues.map((q) => q.changes)}::int[],
        ${queues.map((q) => q.version)}::int[],
        ${column((r) => r.accountId)}::int[], ${column((r) => r.url)}::text[], ${column((r) => r.urlKey)}::text[],
        ${column((r) => r.title)}::text[], ${column((r) => r.source)}::text[], ${column((r) => r.feedId)}::int[],
        ${column((r) => r.summary)}::text[], ${column((r) => r.publishedAt)}::text[],
        ${column((r) => r.imageUrl)}::text[], ${titled}::bool[], ${at})`.execute(db);
    const result = answer[0];
    if (result?.wrote !== true) return null;
    return { inserted: result.inserted, waiting: result.waiting ?? [] };
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'code' in err && err.code === TITLED_WAITING) return null;
    throw err;
  }
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
