import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/** A passkey as the settings page lists it. */
export interface PasskeyInfo {
  id: number;
  name: string;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}

/** What verifying a sign-in with a passkey needs. */
export interface PasskeyCredential {
  id: number;
  accountId: number;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  userHandle: string;
}

const splitTransports = (value: string): string[] => (value === '' ? [] : value.split(','));

export async function passkeysOf(db: Kysely<Database>, accountId: number): Promise<PasskeyInfo[]> {
  return db
    .selectFrom('passkeys')
    .select(['id', 'name', 'created_at as createdAt', 'last_used_at as lastUsedAt'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** The account's credentials (ids and transports), to exclude when adding another; and its user handle. */
export async function passkeyIdsOf(
  db: Kysely<Database>,
  accountId: number,
): Promise<{ credentialId: string; transports: string[]; userHandle: string }[]> {
  const rows = await db
    .selectFrom('passkeys')
    .select(['credential_id', 'transports', 'user_handle'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    credentialId: r.credential_id,
    transports: splitTransports(r.transports),
    userHandle: r.user_handle,
  }));
}

/** The passkey with this credential id, for signing in with it: none when its account is disabled. */
export async function passkeyByCredentialId(
  db: Kysely<Database>,
  credentialId: string,
): Promise<PasskeyCredential | null> {
  const row = await db
    .selectFrom('passkeys as p')
    .innerJoin('accounts as a', 'a.id', 'p.account_id')
    .select([
      'p.id',
      'p.account_id',
      'p.credential_id',
      'p.public_key',
      'p.counter',
      'p.transports',
      'p.user_handle',
    ])
    .where('p.credential_id', '=', credentialId)
    .where('a.disabled_at', 'is', null)
    .executeTakeFirst();
  if (row === undefined) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    credentialId: row.credential_id,
    publicKey: new Uint8Array(row.public_key),
    counter: row.counter,
    transports: splitTransports(row.transports),
    userHandle: row.user_handle,
  };
}

/** Stores a new passkey; false when its credential id is already registered (to any account). */
export async function createPasskey(
  db: Kysely<Database>,
  accountId: number,
  input: {
    credentialId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: string[];
    userHandle: string;
    name: string;
    createdAt: Timestamp;
  },
): Promise<boolean> {
  const r = await db
    .insertInto('passkeys')
    .values({
      account_id: accountId,
      credential_id: input.credentialId,
      public_key: Buffer.from(input.publicKey),
      counter: input.counter,
      transports: input.transports.join(','),
      user_handle: input.userHandle,
      name: input.name,
      created_at: input.createdAt,
    })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** After a sign-in: the new counter and when. */
export async function recordPasskeyUse(
  db: Kysely<Database>,
  accountId: number,
  passkeyId: number,
  counter: number,
  at: Timestamp,
): Promise<void> {
  await db
    .updateTable('passkeys')
    .set({ counter, last_used_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', passkeyId)
    .execute();
}

export async function renamePasskey(
  db: Kysely<Database>,
  accountId: number,
  passkeyId: number,
  name: string,
): Promise<boolean> {
  const r = await db
    .updateTable('passkeys')
    .set({ name })
    .where('account_id', '=', accountId)
    .where('id', '=', passkeyId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Deletes a passkey; the sessions opened with it go with it (foreign key, on delete cascade). */
export async function deletePasskey(
  db: Kysely<Database>,
  accountId: number,
  passkeyId: number,
): Promise<boolean> {
  const r = await db
    .deleteFrom('passkeys')
    .where('account_id', '=', accountId)
    .where('id', '=', passkeyId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
