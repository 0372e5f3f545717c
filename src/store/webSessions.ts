import type { Kysely } from 'kysely';
import type { Database, SignInMethod, Timestamp } from './schema.js';

/** A live session as a request sees it. */
export interface WebSession {
  /** Hex SHA-256 of the cookie's token. */
  id: string;
  accountId: number;
  accountName: string;
  /** The key the browser signed in with; null when it signed in with a password or a passkey. */
  keyId: number | null;
  method: SignInMethod;
  /** The passkey the browser signed in with, if it did. */
  passkeyId: number | null;
  /** The account is an administrator (the web shows it the Accounts page). */
  isAdmin: boolean;
  /** The account's language (src/i18n/languages.ts); null: it chose none. */
  language: string | null;
  csrfToken: string;
  expiresAt: Timestamp;
}

export async function createWebSession(
  db: Kysely<Database>,
  accountId: number,
  input: {
    id: string;
    method: SignInMethod;
    keyId: number | null;
    passkeyId: number | null;
    csrfToken: string;
    createdAt: Timestamp;
    expiresAt: Timestamp;
  },
): Promise<void> {
  await db
    .insertInto('web_sessions')
    .values({
      id: input.id,
      account_id: accountId,
      key_id: input.keyId,
      method: input.method,
      passkey_id: input.passkeyId,
      csrf_token: input.csrfToken,
      created_at: input.createdAt,
      expires_at: input.expiresAt,
    })
    .execute();
}

/**
 * The session with this id if it has not expired, the key it was opened with (if any) is not revoked and
 * its account is not disabled; null otherwise. (A session opened with a passkey is deleted with the
 * passkey.) Sessions are looked up by id alone: the caller learns the account from the row.
 */
export async function liveWebSession(
  db: Kysely<Database>,
  id: string,
  now: Timestamp,
): Promise<WebSession | null> {
  const row = await db
    .selectFrom('web_sessions as s')
    .leftJoin('api_keys as k', (join) =>
      join.onRef('k.id', '=', 's.key_id').onRef('k.account_id', '=', 's.account_id'),
    )
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id',
      's.account_id as accountId',
      'a.name as accountName',
      'a.is_admin as isAdmin',
      'a.language',
      's.key_id as keyId',
      's.method',
      's.passkey_id as passkeyId',
      's.csrf_token as csrfToken',
      's.expires_at as expiresAt',
    ])
    .where('s.id', '=', id)
    .where('s.expires_at', '>', now)
    .where((eb) => eb.or([eb('s.key_id', 'is', null), eb('k.revoked_at', 'is', null)]))
    .where('a.disabled_at', 'is', null)
    .executeTakeFirst();
  return row === undefined ? null : { ...row, isAdmin: row.isAdmin !== 0 };
}

export async function extendWebSession(
  db: Kysely<Database>,
  accountId: number,
  id: string,
  expiresAt: Timestamp,
): Promise<void> {
  await db
    .updateTable('web_sessions')
    .set({ expires_at: expiresAt })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** Ends the account's sessions opened with a password, but one (the browser that changed it). */
export async function deletePasswordSessions(
  db: Kysely<Database>,
  accountId: number,
  exceptId: string | null,
): Promise<number> {
  let query = db
    .deleteFrom('web_sessions')
    .where('account_id', '=', accountId)
    .where('method', '=', 'password');
  if (exceptId !== null) query = query.where('id', '!=', exceptId);
  const r = await query.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Ends every session of an account (when it is disabled). */
export async function deleteAccountWebSessions(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteWebSession(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id', '=', id).execute();
}

/** Forgets sessions that ended before `now` (expired, or opened with a key since revoked). */
export async function deleteEndedWebSessions(db: Kysely<Database>, now: Timestamp): Promise<number> {
  const expired = await db.deleteFrom('web_sessions').where('expires_at', '<=', now).executeTakeFirst();
  const revoked = await db
    .deleteFrom('web_sessions')
    .where('key_id', 'in', (eb) =>
      eb.selectFrom('api_keys').select('api_keys.id').where('api_keys.revoked_at', 'is not', null),
    )
    .executeTakeFirst();
  return Number(expired.numDeletedRows) + Number(revoked.numDeletedRows);
}
