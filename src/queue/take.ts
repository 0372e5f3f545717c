import type { Kysely } from 'kysely';
import { type QueuedItem, deleteQueueItems, oldestQueueItems, queueLength } from '../store/queueItems.js';
import type { Database } from '../store/schema.js';

/**
 * What a digest takes from a queue, in the transaction that builds it. The caller holds the account's
 * row lock (digest/build.ts takes it with lockAccount, as every queue writer takes it first) and advances
 * the queue's version when it records the build, so that cached GET answers of the API are not served again.
 */
export interface Taken {
  /** The oldest `limit` items, oldest first, each with the reader's name for its feed. */
  items: QueuedItem[];
  /** How many items stay waiting for the next digest. */
  remaining: number;
}

/** The oldest `limit` items of the account's queue and how many would stay behind them. */
export async function oldestWaiting(trx: Kysely<Database>, accountId: number, limit: number): Promise<Taken> {
  const items = await oldestQueueItems(trx, accountId, limit);
  if (items.length === 0) return { items, remaining: 0 };
  return { items, remaining: (await queueLength(trx, accountId)) - items.length };
}

/** Takes the given items out of the account's queue (they went into a digest). */
export async function takeItems(
  trx: Kysely<Database>,
  accountId: number,
  items: readonly QueuedItem[],
): Promise<void> {
  await deleteQueueItems(
    trx,
    accountId,
    items.map((i) => i.id),
  );
}
