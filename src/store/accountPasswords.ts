import { type Kysely, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/** The stored hash of an account's password, or null when it has none. */
export async function passwordHashOf(db: Kysely<Database>, accountId: number): Promise<string | null> {
  const row = await db
    .selectFrom('account_passwords')
    .select('password_hash')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.password_hash ?? null;
}

/** When the account's password was last set, or null when it has none. */
export async function passwordSetAt(db: Kysely<Database>, accountId: number): Promise<Timestamp | null> {
  const row = await db
    .selectFrom('account_passwords')
    .select('updated_at')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.updated_at ?? null;
}

/** Sets (or replaces) the account's password hash. */
export async function savePasswordHash(
  db: Kysely<Database>,
  accountId: number,
  hash: string,
  at: Timestamp,
): Promise<void> {
  await db
    .insertInto('account_passwords')
    .values({ account_id: accountId, password_hash: hash, updated_at: at })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ password_hash: hash, updated_at: at }))
    .execute();
}

export async function deletePassword(db: Kysely<Database>, accountId: number): Promise<boolean> {
  const r = await db.deleteFrom('account_passwords').where('account_id', '=', accountId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * The accounts an identifier may name for a password sign-in, with their password hashes (null: no
 * password) and whether it is the account's e-mail address (any case; at most one account, migration 0026)
 * or its name (any case). At most `limit`, by id; a disabled account is none of them.
 */
export async function passwordCandidates(
  db: Kysely<Database>,
  identifier: string,
  limit: number,
): Promise<{ accountId: number; passwordHash: string | null; byEmail: boolean }[]> {
  // The e-mail address first: it names one account whatever other accounts are called.
  const rows = await db
    .selectFrom('accounts as a')
    .leftJoin('account_passwords as p', 'p.account_id', 'a.id')
    .select((eb) => [
      'a.id as accountId',
      'p.password_hash as passwordHash',
      eb(eb.fn('lower', ['a.email']), '=', eb.fn('lower', [eb.val(identifier)])).as('byEmail'),
    ])
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['a.email']), '=', eb.fn('lower', [eb.val(identifier)])),
        eb(eb.fn('lower', ['a.name']), '=', eb.fn('lower', [eb.val(identifier)])),
      ]),
    )
    .where('a.disabled_at', 'is', null)
    .orderBy(sql`case when lower(a.email) = lower(${identifier}) then 0 else 1 end`)
    .orderBy('a.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    accountId: r.accountId,
    passwordHash: r.passwordHash,
    byEmail: r.byEmail === true || Number(r.byEmail) === 1,
  }));
}
