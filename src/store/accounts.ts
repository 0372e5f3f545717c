import { type Kysely, type RawBuilder, type Selectable, type SqlBool, type UpdateObject, sql } from 'kysely';
import type { AccountsTable, Database, Timestamp } from './schema.js';
import type { ResurfaceOrder } from './schemaReadingList.js';
import { type Engine, now } from './db.js';
import { emailTaken } from './accountEmails.js';
import { precompile } from './precompiled.js';

export const accountColumns = [
  'id',
  'name',
  'email',
  'timezone',
  'created_at',
  'digest_time',
  'digest_days',
  'digest_max_items',
  'digest_skip_empty',
  'email_enabled',
  'digest_due_at',
  'last_digest_date',
  'show_images',
  'clean_links',
  'is_admin',
  'disabled_at',
  'email_paused_until',
  'ereader_email',
  'resurface_count',
  'resurface_order',
  'language',
] as const;

export type AccountRow = Pick<Selectable<AccountsTable>, (typeof accountColumns)[number]>;

/** An account with its digest settings and schedule (booleans as booleans). */
export type Account = Omit<
  AccountRow,
  'digest_skip_empty' | 'email_enabled' | 'show_images' | 'clean_links' | 'is_admin'
> & {
  digest_skip_empty: boolean;
  email_enabled: boolean;
  /** Digests and the queue page show each item's lead image. */
  show_images: boolean;
  /** Delivered links drop tracking parameters (src/lib/cleanUrl.ts); the stored URL is unchanged. */
  clean_links: boolean;
  /** An administrator: manages accounts and invitations on the web. */
  is_admin: boolean;
};

/**
 * The one rule of whether an account may act through a credential that names it without a sign-in (a
 * signed link's token, an invitation's maker): the account exists and is not disabled, as its keys and
 * sessions are refused in their own look-ups (`credentialByPrefix`, `liveWebSession`). A condition on the
 * column that names the account, in the look-up the link already runs: `.where(accountMayAct('t.account_id'))`.
 */
export const accountMayAct = (accountColumn: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`exists (select 1 from accounts as acting where acting.id = ${sql.ref(accountColumn)} and acting.disabled_at is null)`;

export const toAccount = (row: AccountRow): Account => ({
  ...row,
  digest_skip_empty: row.digest_skip_empty !== 0,
  email_enabled: row.email_enabled !== 0,
  show_images: row.show_images !== 0,
  clean_links: row.clean_links !== 0,
  is_admin: row.is_admin !== 0,
});

export async function createAccount(
  db: Kysely<Database>,
  input: {
    name: string;
    email: string | null;
    timezone: string;
    digestDueAt?: Timestamp | null;
    isAdmin?: boolean;
  },
): Promise<Account> {
  const row = await db
    .insertInto('accounts')
    .values({
      name: input.name,
      is_admin: input.isAdmin === true ? 1 : 0,
      email: input.email,
      timezone: input.timezone,
      digest_due_at: input.digestDueAt ?? null,
      created_at: now(),
    })
    .returning(accountColumns)
    .executeTakeFirstOrThrow()
    .catch(emailTaken);
  return toAccount(row);
}

export async function accountById(db: Kysely<Database>, accountId: number): Promise<Account | null> {
  const row = await db
    .selectFrom('accounts')
    .select(accountColumns)
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row === undefined ? null : toAccount(row);
}

/** The accounts with these ids that exist. */
export async function accountsByIds(db: Kysely<Database>, accountIds: readonly number[]): Promise<Account[]> {
  if (accountIds.length === 0) return [];
  const rows = await db.selectFrom('accounts').select(accountColumns).where('id', 'in', accountIds).execute();
  return rows.map(toAccount);
}

/** Whether any account exists at all (the first one created becomes an administrator). */
export async function hasAccounts(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
}

const ACCOUNT_CREATION_LOCK = 7_141_001; // an arbitrary advisory lock key of Tidings'

/**
 * Whether any account exists, asked by an account creation in its transaction. On PostgreSQL creations first
 * wait for each other (an advisory lock held to the end), so only one on an empty database can find none.
 */
export async function hasAccountsForCreation(db: Kysely<Database>, engine: Engine): Promise<boolean> {
  if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${ACCOUNT_CREATION_LOCK})`.execute(db);
  return hasAccounts(db);
}

/**
 * The administrators who can still act (not disabled), by id; on PostgreSQL their rows stay locked for the
 * rest of the transaction, so that two administrators demoting or disabling each other at once cannot
 * leave none (SQLite's write transaction holds the whole database already).
 */
export async function lockEnabledAdmins(db: Kysely<Database>, engine: Engine): Promise<number[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('id')
    .where('is_admin', '=', 1)
    .where('disabled_at', 'is', null)
    .orderBy('id')
    .$if(engine === 'postgres', (qb) => qb.forUpdate())
    .execute();
  return rows.map((r) => r.id);
}

/** How many accounts there are. */
export async function accountCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Writes some columns of an account; the account as it now is, or null when there is none. */
async function updateAccount(
  db: Kysely<Database>,
  accountId: number,
  values: UpdateObject<Database, 'accounts'>,
): Promise<Account | null> {
  const row = await db
    .updateTable('accounts')
    .set(values)
    .where('id', '=', accountId)
    .returning(accountColumns)
    .executeTakeFirst();
  return row === undefined ? null : toAccount(row);
}

/**
 * Disables an account at `disabledAt` (null enables it again, with its next digest due at `digestDueAt`, so
 * that the days it was disabled bring no digest); the account as it now is, or null when there is none.
 */
export function setAccountDisabled(
  db: Kysely<Database>,
  accountId: number,
  change: { disabledAt: Timestamp } | { disabledAt: null; digestDueAt: Timestamp },
): Promise<Account | null> {
  return updateAccount(db, accountId, {
    disabled_at: change.disabledAt,
    ...('digestDueAt' in change ? { digest_due_at: change.digestDueAt } : {}),
  });
}

/** Makes an account an administrator or not; the account as it now is, or null when there is none. */
export function setAccountAdmin(
  db: Kysely<Database>,
  accountId: number,
  isAdmin: boolean,
): Promise<Account | null> {
  return updateAccount(db, accountId, { is_admin: isAdmin ? 1 : 0 });
}

/** Renames an account; the account as it now is, or null when there is none. */
export function renameAccount(
  db: Kysely<Database>,
  accountId: number,
  name: string,
): Promise<Account | null> {
  return updateAccount(db, accountId, { name });
}

/**
 * Deletes an account. Its keys, sessions, queue, subscriptions, digests (with their items), digest token
 * and the invitations it made go with it (ON DELETE CASCADE in every table that names an account);
 * invitations it accepted keep their row with the account forgotten. False when there was none.
 */
export async function deleteAccount(db: Kysely<Database>, accountId: number): Promise<boolean> {
  const result = await db.deleteFrom('accounts').where('id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function allAccounts(db: Kysely<Database>): Promise<Account[]> {
  return (await db.selectFrom('accounts').select(accountColumns).orderBy('id').execute()).map(toAccount);
}

/** Digest settings as stored; only the fields given change. */
export interface AccountSettingsUpdate {
  timezone?: string;
  digestTime?: string;
  digestDays?: string;
  digestMaxItems?: number;
  digestSkipEmpty?: boolean;
  email?: string | null;
  emailEnabled?: boolean;
  ereaderEmail?: string | null;
  resurfaceCount?: number;
  resurfaceOrder?: ResurfaceOrder;
  /** BCP 47 code, checked by the caller; null: the operator's default. */
  language?: string | null;
  showImages?: boolean;
  cleanLinks?: boolean;
  /** Emails wait until then (digests are still built); null resumes them. */
  emailPausedUntil?: Timestamp | null;
  /** The next due time, recomputed by the caller when the schedule changed. */
  digestDueAt?: Timestamp | null;
}

/** Changes an account's settings; the account as it now is, or null when there is no such account. */
export async function updateAccountSettings(
  db: Kysely<Database>,
  accountId: number,
  u: AccountSettingsUpdate,
): Promise<Account | null> {
  if (Object.values(u).every((v) => v === undefined)) return accountById(db, accountId);
  const row = await db
    .updateTable('accounts')
    .set({
      ...(u.timezone === undefined ? {} : { timezone: u.timezone }),
      ...(u.digestTime === undefined ? {} : { digest_time: u.digestTime }),
      ...(u.digestDays === undefined ? {} : { digest_days: u.digestDays }),
      ...(u.digestMaxItems === undefined ? {} : { digest_max_items: u.digestMaxItems }),
      ...(u.digestSkipEmpty === undefined ? {} : { digest_skip_empty: u.digestSkipEmpty ? 1 : 0 }),
      ...(u.email === undefined ? {} : { email: u.email }),
      ...(u.emailEnabled === undefined ? {} : { email_enabled: u.emailEnabled ? 1 : 0 }),
      ...(u.ereaderEmail === undefined ? {} : { ereader_email: u.ereaderEmail }),
      ...(u.resurfaceCount === undefined ? {} : { resurface_count: u.resurfaceCount }),
      ...(u.resurfaceOrder === undefined ? {} : { resurface_order: u.resurfaceOrder }),
      ...(u.language === undefined ? {} : { language: u.language }),
      ...(u.showImages === undefined ? {} : { show_images: u.showImages ? 1 : 0 }),
      ...(u.cleanLinks === undefined ? {} : { clean_links: u.cleanLinks ? 1 : 0 }),
      ...(u.emailPausedUntil === undefined ? {} : { email_paused_until: u.emailPausedUntil }),
      ...(u.digestDueAt === undefined ? {} : { digest_due_at: u.digestDueAt }),
    })
    .where('id', '=', accountId)
    .returning(accountColumns)
    .executeTakeFirst()
    .catch(emailTaken);
  return row === undefined ? null : toAccount(row);
}

/** An account as a digest build sees it under its row lock: with who holds its digest lease. */
export type LockedAccount = Account & { digest_lease_owner: string | null };

/**
 * Locks the account's row for the rest of the transaction without changing it (queue_version stays, so
 * the API's cached reads stay valid) and reads it; null when there is no such account. On PostgreSQL
 * SELECT … FOR UPDATE, in the same order as every queue writer's UPDATE; SQLite's write transaction
 * (BEGIN IMMEDIATE) holds the whole database already.
 */
export async function lockAccount(
  db: Kysely<Database>,
  engine: Engine,
  accountId: number,
): Promise<LockedAccount | null> {
  const row = await db
    .selectFrom('accounts')
    .select([...accountColumns, 'digest_lease_owner'])
    .where('id', '=', accountId)
    .$if(engine === 'postgres', (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row === undefined ? null : { ...toAccount(row), digest_lease_owner: row.digest_lease_owner };
}

const lockQuery = precompile((db, p: { accountId: number; changes: number }) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ queue_version: eb('queue_version', '+', p.changes) }))
    .where('id', '=', p.accountId)
    .returning('queue_version'),
);

/**
 * Takes the lock on the account's queue for the rest of the transaction (on PostgreSQL its row lock;
 * SQLite serialises writers anyway) and advances the queue's version by `changes`, the number of changes
 * offered to it. Every change to a queue takes it first: it orders writers to one queue across instances
 * and keys the API's cached answers. Returns the new version; null when there is no such account.
 */
export async function lockQueue(
  db: Kysely<Database>,
  accountId: number,
  changes = 1,
): Promise<number | null> {
  const { rows } = await lockQuery(db, { accountId, changes });
  return rows[0]?.queue_version ?? null;
}

/**
 * lockQueue for several queues at once, in account id order (as every writer that locks several takes
 * them, which rules out deadlocks): each account's version advanced by its `changes`. On PostgreSQL one
 * statement locks them all (its FOR UPDATE takes the rows in the order of its ORDER BY). The new versions
 * by account; an account that does not exist is absent.
 */
export async function lockQueues(
  db: Kysely<Database>,
  engine: Engine,
  queues: readonly { accountId: number; changes: number }[],
): Promise<Map<number, number>> {
  const sorted = [...queues].sort((a, b) => a.accountId - b.accountId);
  const versions = new Map<number, number>();
  if (engine === 'sqlite' || sorted.length === 1) {
    for (const { accountId, changes } of sorted) {
      const version = await lockQueue(db, accountId, changes);
      if (version !== null) versions.set(accountId, version);
    }
    return versions;
  }
  if (sorted.length === 0) return versions;
  const { rows } = await lockQueuesQuery(sorted).execute(db);
  for (const r of rows) versions.set(r.id, r.queue_version);
  return versions;
}

/**
 * PostgreSQL's one statement for lockQueues (the queues in any order): the new versions as rows of
 * (id, queue_version).
 */
function lockQueuesQuery(queues: readonly { accountId: number; changes: number }[]) {
  return sql<{ id: number; queue_version: number }>`
    with locked as materialized (
      select id from accounts where id = any(${queues.map((q) => q.accountId)}::int[]) order by id for update
    )
    update accounts a set queue_version = a.queue_version + c.changes
    from locked join unnest(${queues.map((q) => q.accountId)}::int[], ${queues.map((q) => q.changes)}::int[])
      as c(id, changes) on c.id = locked.id
    where a.id = locked.id
    returning a.id, a.queue_version`;
}
