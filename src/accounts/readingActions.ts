import type { ReadingAction } from '../digest/actionTokens.js';
import type { Store } from '../store/db.js';
import { setReadingState } from '../store/readingList.js';
import { type OfferedItem, offeredItemOfAction, setKeptForTomorrow } from '../store/readingListOffers.js';
import type { ActionReader } from './digestActions.js';

/*
 * The actions of a digest's "From your reading list" links (digest/actionTokens.ts readingActionUrl), as
 * the account sees them: archive an item the digest offered, or keep it for tomorrow (the next digest
 * offers it before any other: store/readingListOffers.ts). A token authorises them on the items its digest
 * offered only; each can be undone from its page. The action page (http/web/pages/readingActions.ts)
 * uses nothing else.
 */

/** What the page says before the button: the item, and whether there is anything to do. */
export interface ReadingPreview {
  kind: ReadingAction['kind'];
  title: string;
  url: string;
  archived: boolean;
  /** Kept for tomorrow already (not yet offered again). */
  kept: boolean;
}

/** How to undo: unarchive, or take the "keep" mark off if it is still the one this action set. */
export type ReadingUndo = { kind: 'unarchive' } | { kind: 'unkeep'; keptAt: string };

export interface ReadingDone {
  kind: ReadingAction['kind'];
  title: string;
  url: string;
  /** False: nothing to change (already archived, already kept, or archived so not kept). */
  changed: boolean;
  undo: ReadingUndo | null;
}

const previewOf = (kind: ReadingAction['kind'], item: OfferedItem): ReadingPreview => ({
  kind,
  title: item.title,
  url: item.url,
  archived: item.state === 'archived',
  kept: item.kept_at !== null,
});

function itemOf(store: Store, reader: ActionReader, action: ReadingAction): Promise<OfferedItem | null> {
  return offeredItemOfAction(store.db, reader.accountId, reader.digestId, action.readingId);
}

/** What the page describes the action with; null when the digest did not offer the item. */
export async function describeReadingAction(
  store: Store,
  reader: ActionReader,
  action: ReadingAction,
): Promise<ReadingPreview | null> {
  const item = await itemOf(store, reader, action);
  return item === null ? null : previewOf(action.kind, item);
}

/** Does it; null when the digest did not offer the item. */
export async function performReadingAction(
  store: Store,
  reader: ActionReader,
  action: ReadingAction,
  now: Date,
): Promise<ReadingDone | null> {
  const item = await itemOf(store, reader, action);
  if (item === null) return null;
  const done = { kind: action.kind, title: item.title, url: item.url };
  const at = now.toISOString();
  if (action.kind === 'archive') {
    if (item.state === 'archived') return { ...done, changed: false, undo: null };
    await setReadingState(store.db, reader.accountId, item.id, 'archived', at);
    return { ...done, changed: true, undo: { kind: 'unarchive' } };
  }
  // An archived item is never offered; one already kept keeps its place in the line.
  if (item.state === 'archived' || item.kept_at !== null) return { ...done, changed: false, undo: null };
  const kept = await setKeptForTomorrow(store.db, reader.accountId, item.id, at);
  return { ...done, changed: kept, undo: kept ? { kind: 'unkeep', keptAt: at } : null };
}

/**
 * Undoes what performReadingAction did: unarchives (only an archived item), or takes the "keep" mark off
 * if it is still the one set (false: a digest has offered it since). Null when the digest did not offer
 * the item or the undo is not this action's.
 */
export async function undoReadingAction(
  store: Store,
  reader: ActionReader,
  action: ReadingAction,
  undo: ReadingUndo,
  now: Date,
): Promise<{ undone: boolean; preview: ReadingPreview } | null> {
  const item = await itemOf(store, reader, action);
  if (item === null || (action.kind === 'archive') !== (undo.kind === 'unarchive')) return null;
  let undone = false;
  if (undo.kind === 'unarchive' && item.state === 'archived') {
    undone = await setReadingState(store.db, reader.accountId, item.id, 'unread', now.toISOString());
  } else if (undo.kind === 'unkeep') {
    undone = await setKeptForTomorrow(store.db, reader.accountId, item.id, null, undo.keptAt);
  }
  const after = await itemOf(store, reader, action);
  return after === null ? null : { undone, preview: previewOf(action.kind, after) };
}
