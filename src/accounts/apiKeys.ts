import type { Store } from '../store/db.js';
import {
  type ApiKeyInfo,
  apiKeyById,
  apiKeysByAccount,
  createApiKey,
  renameApiKey,
  revokeAccountApiKey,
  revokeApiKey,
} from '../store/apiKeys.js';
import { accountById } from '../store/accounts.js';
import type { AccountId } from './authorize.js';
import { generateKey } from './keys.js';

/** An account's API keys: issued (shown once), listed (never the keys themselves), renamed, revoked. */

/** Issues another key for the account; null when the account no longer exists. */
export async function issueKey(
  store: Store,
  accountId: AccountId,
  name: string,
): Promise<{ apiKey: string; keyInfo: ApiKeyInfo } | null> {
  if ((await accountById(store.db, accountId)) === null) return null;
  const key = generateKey();
  const keyInfo = await createApiKey(store.db, accountId, {
    name: name.trim() || 'key',
    prefix: key.prefix,
    keyHash: key.hash,
  });
  return { apiKey: key.key, keyInfo };
}

/** The account's keys, oldest first, revoked ones too. */
export async function listKeys(store: Store, accountId: AccountId): Promise<ApiKeyInfo[]> {
  return apiKeysByAccount(store.db, accountId);
}

/** Renames one of the account's keys; false when it has no such key. */
export async function renameKey(
  store: Store,
  accountId: AccountId,
  keyId: number,
  name: string,
): Promise<boolean> {
  return renameApiKey(store.db, accountId, keyId, name);
}

/**
 * Revokes one of the account's active keys, unless it is the last one (without an active key the reader
 * could not sign in again): `not_found` when the account has no such active key.
 */
export async function revokeKey(
  store: Store,
  accountId: AccountId,
  keyId: number,
): Promise<'revoked' | 'not_found' | 'last_key'> {
  const live = (await apiKeysByAccount(store.db, accountId)).filter((k) => k.revoked_at === null);
  if (!live.some((k) => k.id === keyId)) return 'not_found';
  if (live.length === 1) return 'last_key';
  return (await revokeAccountApiKey(store.db, accountId, keyId)) ? 'revoked' : 'not_found';
}

/**
 * The operator revokes any key by its id (`tidings key revoke`), the last one of an account too. Null
 * when there is no such key; `revoked` false when it was revoked already.
 */
export async function revokeAnyKey(
  store: Store,
  keyId: number,
): Promise<{ key: ApiKeyInfo; revoked: boolean } | null> {
  const key = await apiKeyById(store.db, keyId);
  if (key === null) return null;
  return { key, revoked: await revokeApiKey(store.db, keyId) };
}
