import type { ChangeFeed, Invalidation } from '../store/changeFeed.js';
import type { KeyCredential } from '../store/apiKeys.js';

/**
 * What authentication needs, kept in memory on PostgreSQL so that the API's steady state makes no round
 * trip: for each live key's prefix its id, account and stored SHA-256 (never the key itself), and for each
 * account its queue version. An entry is used only while the change feed is trusted (store/changeFeed.ts)
 * and is forgotten when a notice says its account or key changed; a read that a notice overlapped is not
 * kept (`changedSince`). A disabled or deleted account, or a revoked key, is then read again, and refused.
 */
export class CredentialCache {
  private readonly keys = new Map<string, { keyId: number; accountId: number; keyHash: string }>();
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

  /** A mark to take before reading a credential from the database (see `put`). */
  mark(): number {
    return this.feed.mark();
  }

  /** Keeps what the database answered for this prefix, unless a notice about it arrived since `mark`. */
  put(prefix: string, credential: KeyCredential | null, mark: number): void {
    if (credential === null) {
      this.keys.delete(prefix); // not live (any more): nothing negative is kept
      return;
    }
    const { keyId, accountId, keyHash, queueVersion } = credential;
    if (this.feed.changedSince(mark, accountId, prefix)) return;
    setBounded(this.keys, prefix, { keyId, accountId, keyHash }, this.maxEntries);
    setBounded(this.versions, accountId, queueVersion, this.maxEntries);
  }

  private forget(change: Invalidation | null): void {
    if (change === null) {
      this.keys.clear();
      this.versions.clear();
    } else if (change.kind === 'account') {
      this.versions.delete(change.id);
    } else {
      this.keys.delete(change.prefix);
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
