import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import { now } from './db.js';
import { precompile } from './precompiled.js';

export interface ApiKeyInfo {
  id: number;
  account_id: number;
  name: string;
  prefix: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/** What authentication needs: the stored hash to compare and the account's current queue version. */
export interface KeyCredential {
  keyId: number;
  accountId: number;
  keyHash: string;
  queueVersion: number;
}

const infoColumns = [
  'id',
  'account_id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

export async function createApiKey(
  db: Kysely<Database>,
  accountId: number,
  input: { name: string; prefix: string; keyHash: string },
): Promise<ApiKeyInfo> {
  return db
    .insertInto('api_keys')
    .values({
      account_id: accountId,
      name: input.name,
      prefix: input.prefix,
      key_hash: input.keyHash,
      created_at: now(),
    })
    .returning(infoColumns)
    .executeTakeFirstOrThrow();
}

export async function apiKeysByAccount(db: Kysely<Database>, accountId: number): Promise<ApiKeyInfo[]> {
  return db
    .selectFrom('api_keys')
    .select(infoColumns)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function apiKeyById(db: Kysely<Database>, keyId: number): Promise<ApiKeyInfo | null> {
  const row = await db.selectFrom('api_keys').select(infoColumns).where('id', '=', keyId).executeTakeFirst();
  return row ?? null;
}

const credentialQuery = precompile((db, p: { prefix: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.account_id as accountId',
      'api_keys.key_hash as keyHash',
      'accounts.queue_version as queueVersion',
    ])
    .where('api_keys.prefix', '=', p.prefix)
    .where('api_keys.revoked_at', 'is', null)
    .where('accounts.disabled_at', 'is', null),
);

/**
 * The live (not revoked) key with this prefix of an account that is not disabled, joined with its account's
 * queue version; null if none. The one rule that refuses a disabled account's keys (API and sign-in alike).
 * On every API request: precompiled, one statement.
 */
export async function credentialByPrefix(
  db: Kysely<Database>,
  prefix: string,
): Promise<KeyCredential | null> {
  const { rows } = await credentialQuery(db, { prefix });
  return rows[0] ?? null;
}

/** Revokes a key; returns false when there is no such key or it was already revoked. */
export async function revokeApiKey(db: Kysely<Database>, keyId: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function touchApiKey(db: Kysely<Database>, keyId: number, at: Timestamp): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}

/** Renames one of the account's keys; false when the account has no such key. */
export async function renameApiKey(
  db: Kysely<Database>,
  accountId: number,
  keyId: number,
  name: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ name })
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Revokes one of the account's keys; false when the account has no such key or it was already revoked.
 * (revokeApiKey, for the operator's CLI, takes any account's key.)
 */
export async function revokeAccountApiKey(
  db: Kysely<Database>,
  accountId: number,
  keyId: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now() })
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
