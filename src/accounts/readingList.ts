import { TidingsError } from '../errors.js';
import { now, type Store } from '../store/db.js';
import { exclusive } from '../store/precompiled.js';
import {
  type ReadingListed,
  readingListCounts,
  readingListPage,
  setReadingState,
} from '../store/readingList.js';
import { type TagCount, readingTagCounts } from '../store/readingListBrowse.js';
import type { ReadingState } from '../store/schemaReadingList.js';
import type { AccountId } from './authorize.js';

export type { ReadingListed } from '../store/readingList.js';
export type { TagCount } from '../store/readingListBrowse.js';
export type { ReadingState } from '../store/schemaReadingList.js';

/** Which items the reading-list page shows: a state (or all) and, optionally, one tag. */
export interface ReadingListFilter {
  state: ReadingState | 'all';
  /** A tag as stored (lower-cased); null: any. */
  tag: string | null;
}

/** A page of the reading list, what it is a page of, and the tags to filter by. */
export interface ReadingListView {
  /** Newest saved first. */
  items: ReadingListed[];
  /** Items matching the filter. */
  total: number;
  /** The account's items by state (whatever the filter). */
  counts: Record<ReadingState, number>;
  /** The tags of the items of the filter's state, most used first. */
  tags: TagCount[];
}

/** The web's reading-list page: one page of the account's items (newest saved first) and its filters. */
export function readingListView(
  store: Store,
  accountId: AccountId,
  filter: ReadingListFilter,
  page: { offset: number; limit: number },
): Promise<ReadingListView> {
  const state = filter.state === 'all' ? undefined : filter.state;
  return exclusive(store.db, async (db) => {
    const { items, total } = await readingListPage(
      db,
      accountId,
      { ...(state === undefined ? {} : { state }), ...(filter.tag === null ? {} : { tag: filter.tag }) },
      page,
    );
    const counts = await readingListCounts(db, accountId);
    const tags = await readingTagCounts(db, accountId, state);
    return { items, total, counts, tags };
  });
}

/** Archives or unarchives one of the account's items; `not_found` when it has none of that id. */
export async function setReadingItemState(
  store: Store,
  accountId: AccountId,
  id: number,
  state: ReadingState,
): Promise<void> {
  if (!(await setReadingState(store.db, accountId, id, state, now()))) {
    throw new TidingsError('not_found', 'that item is not in your reading list');
  }
}
