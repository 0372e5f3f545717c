import type { Kysely } from 'kysely';
import { type WaitingItem, deleteQueueItemsOfAccounts, waitingItemsOfAccounts } from '../store/queueItems.js';
import type { Database } from '../store/schema.js';

export type { WaitingItem } from '../store/queueItems.js';

/**
 * What a digest takes from a queue, in the transaction that builds it. The caller holds the account's
 * row lock (digest/batch.ts takes them with lockAccounts, as every queue writer takes it first) and advances
 * the queue's version when it records the build, so that cached GET answers of the API are not served again.
 */

/**
 * Most items one build reads of a queue (its oldest). Past it a queue is a backlog that drains over the
 * next digests; a build's memory and time stay bounded whatever TIDINGS_QUEUE_LIMIT allows.
 */
export const MAX_ITEMS_READ = 10_000;

/** Everything waiting in several accounts' queues (up to MAX_ITEMS_READ each), oldest first; one statement. */
export async function waitingOf(
  trx: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, WaitingItem[]>> {
  const queued = await waitingItemsOfAccounts(trx, accountIds, MAX_ITEMS_READ);
  return new Map(accountIds.map((id) => [id, queued.get(id)?.items ?? []]));
}

/** Takes the given items out of their accounts' queues (they went into digests). */
export async function takeItemsOf(
  trx: Kysely<Database>,
  accountIds: readonly number[],
  items: readonly { id: number }[],
): Promise<void> {
  await deleteQueueItemsOfAccounts(
    trx,
    accountIds,
    items.map((i) => i.id),
  );
}
