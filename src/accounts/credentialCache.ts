import type { ChangeFeed, Invalidation } from '../store/changeFeed.js';
import type { KeyCredential } from '../store/apiKeys.js';

/** A live key as authentication needs it: its id, account and stored SHA-256 (never the key itself). */
export type CachedKey = Omit<KeyCredential, 'queueVersion'>;

/**
 * What authentication needs, kept in memory on PostgreSQL so that the API's steady state makes no round
 * trip: for each live key's prefix its id, account and stored SHA-256, and for each account its queue
 * version. An entry is used only while the change feed is trusted for it (store/changeFeed.ts) and is
 * forgotten when a notice says it changed: a queue that moved forgets its version; an account disabled,
 * enabled or deleted forgets its version and its keys; a key revoked or deleted forgets that key. A read
 * that such a notice overlapped is not kept (`changedSince`). A disabled or deleted account, or a revoked
 * key, is then read again, and refused.
 *
 * A GET needs the queue's version (`get`); a save needs only the key (`key`), which stays cached while
 * saves move the queue, on this instance or another.
 */
export class CredentialCache {
  private readonly keys = new Map<string, CachedKey>();
  private readonly versions = new Map<number, number>();

  constructor(
    private readonly feed: ChangeFeed,
    private readonly maxEntries = 10_000,
  ) {
    feed.subscribe((change) => this.forget(change));
  }

  /** The cached credential of this prefix when it may be used now; undefined means "ask the database". */
  get(prefix: string): KeyCredential | undefined {
    if (!this.feed.trusted()) return undefined;
    const key = this.keys.get(prefix);
    if (key === undefined) return undefined;
    const queueVersion = this.versions.get(key.accountId);
    return queueVersion === undefined ? undefined : { ...key, queueVersion };
  }

  /** The cached key of this prefix, without its queue's version, when it may be used now. */
  key(prefix: string): CachedKey | undefined {
    return this.feed.trusted('keys') ? this.keys.get(prefix) : undefined;
  }

  /** A mark to take before reading a credential from the database (see `put`). */
  mark(): number {
    return this.feed.mark();
  }

  /**
   * Keeps what the database answered for this prefix: the key unless a notice about it or its account
   * arrived since `mark`, the queue's version unless any notice about the account did.
   */
  put(prefix: string, credential: KeyCredential | null, mark: number): void {
    if (credential === null) {
      this.keys.delete(prefix); // not live (any more): nothing negative is kept
      return;
    }
    const { queueVersion, ...key } = credential;
    if (this.feed.changedSince(mark, key.accountId, prefix, 'keys')) return;
    setBounded(this.keys, prefix, key, this.maxEntries);
    if (this.feed.changedSince(mark, key.accountId, prefix)) return;
    setBounded(this.versions, key.accountId, queueVersion, this.maxEntries);
  }

  private forget(change: Invalidation | null): void {
    if (change === null) {
      this.keys.clear();
      this.versions.clear();
    } else if (change.kind === 'key') {
      this.keys.delete(change.prefix);
    } else {
      this.versions.delete(change.id);
      if (change.kind === 'account') {
        for (const [prefix, key] of this.keys) if (key.accountId === change.id) this.keys.delete(prefix);
      }
    }
  }
}

function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}
