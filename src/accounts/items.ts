import type { AccountId } from '../lib/authorized.js';
import { accountById } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { type ItemOfPage, type PageReading, accountItemOfPage, readPageById } from '../store/pageReads.js';

export type { ItemOfPage, PageReading } from '../store/pageReads.js';

/** A page to read, as one account may see it. */
export interface ReadableItem {
  page: PageReading;
  /** The account's item that shows the page (its saved link and title). */
  item: ItemOfPage;
  /** The account's display switches. */
  showImages: boolean;
  cleanLinks: boolean;
  timezone: string;
}

/**
 * The page `pageId` for the reading view, when the account has an item (queued or in one of its digests)
 * that shows it and the page was read; null otherwise, so that a page only other accounts saved is as
 * unknown as one that does not exist.
 */
export async function readableItem(
  store: Store,
  accountId: AccountId,
  pageId: number,
): Promise<ReadableItem | null> {
  const item = await accountItemOfPage(store.db, accountId, pageId);
  if (item === null) return null;
  const [page, account] = await Promise.all([
    readPageById(store.db, pageId),
    accountById(store.db, accountId),
  ]);
  if (page === null || account === null) return null;
  return {
    page,
    item,
    showImages: account.show_images,
    cleanLinks: account.clean_links,
    timezone: account.timezone,
  };
}
