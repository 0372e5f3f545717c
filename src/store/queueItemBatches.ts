import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.js';
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

/** PostgreSQL's one statement for createQueueItems; `where` (if given) decides whether it writes at all. */
function insertRows(rows: readonly NewQueueRow[], where: RawBuilder<unknown> = sql``) {
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
    ${where}
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

/**
 * When createQueueItemsReadingWaiting's statement writes (see insertReadingWaitingQuery): only if each
 * account's queue is at the version expected, and none of the rows whose `titled` is true (a URL some
 * save names) is waiting.
 */
export interface InsertCondition {
  versions: readonly { accountId: number; version: number }[];
  /** For each row, in order. */
  titled: readonly boolean[];
}

/** What the statement answers: the rows inserted, the rows' keys that were waiting, and whether it wrote. */
export interface InsertedReadingWaiting {
  inserted: number;
  waiting: WaitingByKey[];
  wrote: boolean;
}

/**
 * PostgreSQL's one statement for createQueueItemsReadingWaiting. With a condition, it inserts nothing
 * (and says it did not write) unless the condition holds, as of the queues' locks when they were taken by
 * an earlier statement of the same transaction (each statement of a transaction sees what was committed
 * before it began, at PostgreSQL's default isolation).
 */
export function insertReadingWaitingQuery(rows: readonly NewQueueRow[], condition?: InsertCondition) {
  const versions = condition?.versions ?? [];
  const titled = condition?.titled ?? rows.map(() => false);
  return sql<InsertedReadingWaiting>`
    with waiting as (
      select q.account_id as "accountId", q.url_key as "urlKey", q.id, q.title, k.titled
      from unnest(${rows.map((r) => r.accountId)}::int[], ${rows.map((r) => r.urlKey)}::text[], ${titled}::bool[])
        as k(account_id, url_key, titled)
      join queue_items q on q.account_id = k.account_id and q.url_key = k.url_key
    ), allowed as (
      select not exists (select from waiting where titled)
        and not exists (
          select from unnest(${versions.map((v) => v.accountId)}::int[], ${versions.map((v) => v.version)}::int[])
            as e(id, version)
          left join accounts a on a.id = e.id
          where a.queue_version is distinct from e.version
        ) as yes
    ), inserted as (${insertRows(rows, sql`where (select yes from allowed)`)})
    select (select count(*) from inserted) as inserted,
      (select coalesce(json_agg(json_build_object('accountId', "accountId", 'urlKey', "urlKey", 'id', id, 'title', title)), '[]')
        from waiting) as waiting,
      (select yes from allowed) as wrote`;
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
