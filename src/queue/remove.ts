import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { lockQueue } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import { deleteQueueItemReturning } from '../store/queueItems.js';

/**
 * Takes one item out of the account's queue; false when the account has no such item waiting (another
 * account's, or one that has gone into a digest). The queue's lock is taken first, in the same
 * transaction, as every change to a queue does: it orders the change against a digest build, and
 * advances the version the API's cached GET answers are keyed by.
 */
export async function removeQueuedItem(store: Store, accountId: AccountId, itemId: number): Promise<boolean> {
  return (await takeQueuedItem(store, accountId, itemId)) !== null;
}

/**
 * As removeQueuedItem, answering what was removed (its URL and title as saved), so that the web's "Undo"
 * can put it back; null when the account had no such item waiting.
 */
export async function takeQueuedItem(
  store: Store,
  accountId: AccountId,
  itemId: number,
): Promise<{ url: string; title: string } | null> {
  return transaction(store.db, async (trx) => {
    if ((await lockQueue(trx, accountId)) === null) return null;
    return deleteQueueItemReturning(trx, accountId, itemId);
  });
}
