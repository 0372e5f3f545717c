import type { Store } from '../store/db.js';

/**
 * "A message was stored", told in this process to the forwarder (forward.ts), which forwards a sender's
 * first message at once rather than at its next look. Another process's messages it finds at that look.
 */
const listeners = new WeakMap<Store, Set<() => void>>();

/** Tells this process's forwarder that a message was stored (call after the commit). */
export function noteStored(store: Store): void {
  for (const fn of listeners.get(store) ?? []) fn();
}

/** Calls `fn` when this process stored a message; returns how to stop. */
export function onStored(store: Store, fn: () => void): () => void {
  let set = listeners.get(store);
  if (set === undefined) listeners.set(store, (set = new Set()));
  const own = set;
  own.add(fn);
  return () => {
    own.delete(fn);
  };
}
