import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, Database } from './schema.js';
import { now } from './db.js';
import { precompile } from './precompiled.js';

export type Account = Omit<Selectable<AccountsTable>, 'queue_version'>;

const columns = ['id', 'name', 'email', 'timezone', 'created_at'] as const;

export async function createAccount(
  db: Kysely<Database>,
  input: { name: string; email: string | null; timezone: string },
): Promise<Account> {
  return db
    .insertInto('accounts')
    .values({ ...input, created_at: now() })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

export async function accountById(db: Kysely<Database>, accountId: number): Promise<Account | null> {
  const row = await db.selectFrom('accounts').select(columns).where('id', '=', accountId).executeTakeFirst();
  return row ?? null;
}

export async function allAccounts(db: Kysely<Database>): Promise<Account[]> {
  return db.selectFrom('accounts').select(columns).orderBy('id').execute();
}

export async function accountCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

const bumpQuery = precompile((db, p: { accountId: number }) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ queue_version: eb('queue_version', '+', 1) }))
    .where('id', '=', p.accountId)
    .returning('queue_version'),
);

/** Marks a change to the account's queue and returns the new version (on PostgreSQL, also locks the row). */
export async function bumpQueueVersion(db: Kysely<Database>, accountId: number): Promise<number | null> {
  const { rows } = await bumpQuery(db, { accountId });
  return rows[0]?.queue_version ?? null;
}
