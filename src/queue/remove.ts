import type { Store } from '../store/db.js';
import { bumpQueueVersion } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import { deleteQueueItems } from '../store/queueItems.js';

/**
 * Takes one item out of the account's queue; false when the account has no such item waiting (another
 * account's, or one that has gone into a digest). The queue's version is bumped in the same transaction,
 * first, as every change to a queue does: it locks the account's row against a digest build, and the
 * API's cached GET answers are keyed by it.
 */
export async function removeQueuedItem(store: Store, accountId: number, itemId: number): Promise<boolean> {
  return transaction(store.db, async (trx) => {
    if ((await bumpQueueVersion(trx, accountId)) === null) return false;
    return (await deleteQueueItems(trx, accountId, [itemId])) > 0;
  });
}
