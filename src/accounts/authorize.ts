import { TidingsError } from '../errors.js';
import { localeOf } from '../i18n/locale.js';
import type { AccountId } from '../lib/authorized.js';
import type { Store } from '../store/db.js';
import { accountById } from '../store/accounts.js';
import { type KeyCredential, credentialByPrefix, touchApiKey } from '../store/apiKeys.js';
import { exclusive } from '../store/precompiled.js';
import { type CachedKey, CredentialCache } from './credentialCache.js';
import { keyMatches, keyPrefix } from './keys.js';
import { endOfTurn } from '../lib/turn.js';

export type { AccountId } from '../lib/authorized.js';

/**
 * The one place where a number becomes an AccountId. Only the authentications in src/accounts/ call it
 * (an API key that matched, a web session that is valid, an account the operator named and that exists);
 * `npm run check:imports` fails on an import of it from anywhere else, or a cast to AccountId outside
 * this file.
 */
export const grantAccount = (id: number): AccountId => id as AccountId;

/**
 * The account an operator names on the command line (the CLI is trusted: whoever runs it owns the
 * database). Throws not_found when there is no such account.
 */
export async function operatorAccount(store: Store, id: number): Promise<AccountId> {
  if ((await accountById(store.db, id)) === null) {
    // The operator's own door (the CLI): refused in the operator's language (TIDINGS_LANGUAGE).
    throw new TidingsError('not_found', localeOf(null).t('cli.error.noAccount', { id: String(id) }));
  }
  return grantAccount(id);
}

/** An API key that matched: its id and account. */
export interface AuthenticatedKey {
  accountId: AccountId;
  keyId: number;
}

/** An API key that matched, with its account's queue version (for the queue's cached answer). */
export interface Authenticated extends AuthenticatedKey {
  queueVersion: number;
}

/** Checks a presented API key; null when it is malformed, unknown or revoked. */
export async function authenticate(store: Store, presented: string): Promise<Authenticated | null> {
  const prefix = keyPrefix(presented);
  if (prefix === null) return null;
  const cred = await credential(store, prefix, (cache) => cache.get(prefix));
  if (cred === null || !keyMatches(presented, cred.keyHash)) return null;
  return { accountId: grantAccount(cred.accountId), keyId: cred.keyId, queueVersion: cred.queueVersion };
}

/**
 * authenticate without the queue's version (a save needs none): on PostgreSQL its cached form stays usable
 * while saves move the queue.
 */
export async function authenticateKey(store: Store, presented: string): Promise<AuthenticatedKey | null> {
  const prefix = keyPrefix(presented);
  if (prefix === null) return null;
  const cred = await credential(store, prefix, (cache) => cache.key(prefix));
  if (cred === null || !keyMatches(presented, cred.keyHash)) return null;
  return { accountId: grantAccount(cred.accountId), keyId: cred.keyId };
}

const caches = new WeakMap<Store, CredentialCache>();

/**
 * The credential of a key prefix: on PostgreSQL from this instance's cache when `cached` finds it there
 * (see credentialCache.ts and store/changeFeed.ts), else from the database, as on SQLite, where every
 * request reads it (SQLite's read costs microseconds, and another process may share the file unnoticed).
 */
async function credential<T extends CachedKey>(
  store: Store,
  prefix: string,
  cachedIn: (cache: CredentialCache) => T | undefined,
): Promise<T | KeyCredential | null> {
  if (store.changes === null) return lookUpCredential(store, prefix);
  let cache = caches.get(store);
  if (cache === undefined) {
    cache = new CredentialCache(store.changes);
    caches.set(store, cache);
  }
  const cached = cachedIn(cache);
  if (cached !== undefined) return endOfTurn().then(() => cached); // answered with the turn's others

  const mark = cache.mark();
  const read = await lookUpCredential(store, prefix);
  cache.put(prefix, read, mark);
  return read;
}

/**
 * Look-ups of one key prefix that arrive in the same turn of the event loop share one query, started
 * (in the check phase) after all of them arrived: each request still sees the database as it is after
 * the request came in. Under load, concurrent requests with the same key (one client, one script) then
 * cost one query between them instead of one each.
 */
const pendingLookups = new WeakMap<Store, Map<string, Promise<KeyCredential | null>>>();

function lookUpCredential(store: Store, prefix: string): Promise<KeyCredential | null> {
  let pending = pendingLookups.get(store);
  if (pending === undefined) {
    pending = new Map();
    pendingLookups.set(store, pending);
  }
  let lookup = pending.get(prefix);
  if (lookup === undefined) {
    const batch = pending;
    lookup = endOfTurn().then(() => {
      batch.delete(prefix); // later requests start a new query
      return exclusive(store.db, (db) => credentialByPrefix(db, prefix));
    });
    pending.set(prefix, lookup);
  }
  return lookup;
}

/** Notes when an authenticated key was last used (informational: the caller decides how often). */
export async function noteKeyUse(store: Store, auth: AuthenticatedKey, at: Date): Promise<void> {
  await touchApiKey(store.db, auth.keyId, at.toISOString());
}
