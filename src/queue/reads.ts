import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import {
  type PageCard,
  type PageReadFailure,
  pageCardsByIds,
  pageFailuresByIds,
} from '../store/pageReads.js';
import { exclusive } from '../store/precompiled.js';
import {
  type QueuedItem,
  type SavedUrl,
  queueItemsPage,
  queueLength,
  queueTotals,
  savedUrlsByAccount,
} from '../store/queueItems.js';

export type { QueuedItem, SavedUrl } from '../store/queueItems.js';
export type { PageCard, PageReadFailure } from '../store/pageReads.js';

/** The account's queue, oldest first, as the API lists it: `[{url, title}]`. */
export function savedUrls(store: Store, accountId: AccountId): Promise<SavedUrl[]> {
  return exclusive(store.db, (db) => savedUrlsByAccount(db, accountId));
}

/**
 * A page of the account's queue in the order digests take it (oldest first), each item with the reader's
 * name for its feed, the pages read for them and why the others could not be read (by page id), and the
 * queue's length: what the web app's queue page shows.
 */
export function queuedItemsPage(
  store: Store,
  accountId: AccountId,
  page: { offset: number; limit: number },
): Promise<{
  total: number;
  items: QueuedItem[];
  pages: Map<number, PageCard>;
  failures: Map<number, PageReadFailure>;
}> {
  return exclusive(store.db, async (db) => {
    const total = await queueLength(db, accountId);
    const items = await queueItemsPage(db, accountId, page);
    const ids = items.map((i) => i.page_id);
    const pages = await pageCardsByIds(db, ids);
    const failures = await pageFailuresByIds(db, ids);
    return { total, items, pages, failures };
  });
}

/** Items waiting over all queues, and in the longest one (for the metrics: one query). */
export function queueSizes(store: Store): Promise<{ items: number; longest: number }> {
  return queueTotals(store.db);
}
