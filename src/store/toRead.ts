import type { ToRead } from './changeFeed.js';
import type { Store } from './db.js';

export type { ToRead } from './changeFeed.js';

/*
 * Links to read, told to the page readers at once rather than found at their next poll (issue 33, point
 * 5). A save (queue/add.ts) or an import (imports/importLinks.ts) tells this process's readers once it has
 * committed (noteToRead); on PostgreSQL the readers of other processes hear of it through the change feed
 * (changeFeed.ts onToRead), from migration 0035's notices, sent at the commit whoever wrote. Without
 * either (SQLite shared by several processes, a change feed turned off) a reader finds the links at its
 * next poll, as before.
 */

const listeners = new WeakMap<Store, Map<ToRead, Set<() => void>>>();

/** This process's readers of `what` are told that there are links to read (call after the commit). */
export function noteToRead(store: Store, what: ToRead): void {
  for (const fn of listeners.get(store)?.get(what) ?? []) fn();
}

/**
 * Calls `fn` when links of `what` were saved or imported: by this process (noteToRead), or on PostgreSQL
 * by any (and whenever the change feed may have missed a notice). Returns how to stop.
 */
export function onToRead(store: Store, what: ToRead, fn: () => void): () => void {
  let byKind = listeners.get(store);
  if (byKind === undefined) listeners.set(store, (byKind = new Map<ToRead, Set<() => void>>()));
  let set = byKind.get(what);
  if (set === undefined) byKind.set(what, (set = new Set<() => void>()));
  const own = set;
  own.add(fn);
  const stopHearing = store.changes?.onToRead((notice) => {
    if (notice === null || notice === what) fn();
  });
  return () => {
    own.delete(fn);
    stopHearing?.();
  };
}
