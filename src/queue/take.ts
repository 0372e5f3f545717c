import type { Kysely } from 'kysely';
import {
  type QueuedItem,
  deleteQueueItemsOfAccounts,
  oldestQueueItemsOfAccounts,
} from '../store/queueItems.js';
import type { Database } from '../store/schema.js';

/**
 * What a digest takes from a queue, in the transaction that builds it. The caller holds the account's
 * row lock (digest/batch.ts takes them with lockAccounts, as every queue writer takes it first) and advances
 * the queue's version when it records the build, so that cached GET answers of the API are not served again.
 */
export interface Taken {
  /** The oldest `limit` items, oldest first, each with the reader's name for its feed. */
  items: QueuedItem[];
  /** How many items stay waiting for the next digest. */
  remaining: number;
}

/**
 * The oldest items of several accounts' queues, each up to its account's maximum number of items per
 * digest, and how many would stay behind them, in one statement; every account given has its entry.
 */
export async function oldestWaitingOf(
  trx: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, Taken>> {
  const queued = await oldestQueueItemsOfAccounts(trx, accountIds);
  return new Map(
    accountIds.map((id) => {
      const q = queued.get(id);
      return [
        id,
        q === undefined
          ? { items: [], remaining: 0 }
          : { items: q.items, remaining: q.length - q.items.length },
      ];
    }),
  );
}

/** Takes the given items out of their accounts' queues (they went into digests). */
export async function takeItemsOf(
  trx: Kysely<Database>,
  accountIds: readonly number[],
  items: readonly QueuedItem[],
): Promise<void> {
  await deleteQueueItemsOfAccounts(
    trx,
    accountIds,
    items.map((i) => i.id),
  );
}
