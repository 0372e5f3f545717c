import { type Kysely, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { Engine } from './db.js';
import {
  type Account,
  type AccountRow,
  type LockedAccount,
  accountColumns as columns,
  toAccount,
} from './accounts.js';

/*
 * The accounts table as the digest scheduler sees it: the rows a build locks and leases, and what a build
 * writes back. (The rest of the table's reads and writes are in accounts.ts.)
 */

/**
 * lockAccount for several accounts at once (a batch of digest builds): their rows locked in id order, the
 * order every writer that locks more than one account takes them in, and read; a deleted account is absent.
 */
export async function lockAccounts(
  db: Kysely<Database>,
  engine: Engine,
  accountIds: readonly number[],
): Promise<LockedAccount[]> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .selectFrom('accounts')
    .select([...columns, 'digest_lease_owner'])
    .where('id', 'in', accountIds)
    .orderBy('id')
    .$if(engine === 'postgres', (qb) => qb.forUpdate())
    .execute();
  return rows.map((row) => ({ ...toAccount(row), digest_lease_owner: row.digest_lease_owner }));
}

/**
 * Leases up to `limit` accounts whose digest is due to `owner` until `leaseUntil` (as claimDueFeeds does
 * for feeds): due when digest_due_at has come and nobody holds a live lease; a disabled account never is. On PostgreSQL FOR UPDATE SKIP
 * LOCKED lets several workers claim at once without waiting for or taking each other's accounts.
 */
export async function claimDueAccounts(
  db: Kysely<Database>,
  engine: Engine,
  input: {
    owner: string;
    now: Timestamp;
    leaseUntil: Timestamp;
    limit: number;
    accountId?: number;
    /** Accounts not to claim (a pass's own, already handled). */
    excludeIds?: readonly number[];
  },
): Promise<Account[]> {
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const only = input.accountId === undefined ? sql`` : sql`and id = ${input.accountId}`;
  const exclude = input.excludeIds ?? [];
  const except = exclude.length === 0 ? sql`` : sql`and id not in (${sql.join(exclude)})`;
  const result = await sql<AccountRow>`
    update accounts set digest_lease_owner = ${input.owner}, digest_lease_until = ${input.leaseUntil}
    where id in (
      select id from accounts
      where digest_due_at <= ${input.now} and disabled_at is null
        and (digest_lease_until is null or digest_lease_until < ${input.now}) ${only} ${except}
      order by digest_due_at, id
      limit ${input.limit}
      ${lock}
    )
    returning ${sql.join(columns.map((c) => sql.ref(c)))}`.execute(db);
  return result.rows.map(toAccount);
}

/** What a digest build changes on its account's row, in one write. */
export interface DigestPass {
  /** A scheduled build: the lease it holds (released) and when the next digest is due. */
  scheduled?: { owner: string; dueAt: Timestamp };
  /** A digest was built for this local day: its items left the queue (queue_version moves on). */
  builtFor?: string;
}

/**
 * Records a digest build on the account: its next due time (releasing the lease, only if `owner` still
 * holds it), its last digest and its queue's new version. False when a scheduled build's lease was lost.
 */
async function recordDigestPass(db: Kysely<Database>, accountId: number, pass: DigestPass): Promise<boolean> {
  const { scheduled, builtFor } = pass;
  if (scheduled === undefined && builtFor === undefined) return true;
  const result = await db
    .updateTable('accounts')
    .set((eb) => ({
      ...(scheduled === undefined
        ? {}
        : { digest_due_at: scheduled.dueAt, digest_lease_owner: null, digest_lease_until: null }),
      ...(builtFor === undefined
        ? {}
        : { last_digest_date: builtFor, queue_version: eb('queue_version', '+', 1) }),
    }))
    .where('id', '=', accountId)
    .$if(scheduled !== undefined, (qb) => qb.where('digest_lease_owner', '=', scheduled?.owner ?? ''))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A digest build to record on its account (recordDigestPasses). */
export interface AccountDigestPass extends DigestPass {
  accountId: number;
}

/**
 * recordDigestPass for the accounts of a batch of builds, all scheduled or all not (`--force`): on
 * PostgreSQL one statement for them all; on SQLite one each (statements cost no round trip there). Returns
 * the accounts whose pass was not recorded: a scheduled build whose lease was lost.
 */
export async function recordDigestPasses(
  db: Kysely<Database>,
  engine: Engine,
  passes: readonly AccountDigestPass[],
): Promise<number[]> {
  const scheduled = passes.filter((p) => p.scheduled !== undefined);
  if (
    engine === 'sqlite' ||
    passes.length === 1 ||
    (scheduled.length > 0 && scheduled.length < passes.length)
  ) {
    const lost: number[] = [];
    for (const { accountId, ...pass } of passes)
      if (!(await recordDigestPass(db, accountId, pass))) lost.push(accountId);
    return lost;
  }
  const rows = passes.filter((p) => p.scheduled !== undefined || p.builtFor !== undefined);
  if (rows.length === 0) return [];
  const column = <T>(pick: (p: AccountDigestPass) => T): T[] => rows.map(pick);
  // Each row's own values; a null builtFor leaves last_digest_date and queue_version as they are. In
  // scheduled mode every row releases its lease, only if its owner still holds it.
  const isScheduled = scheduled.length > 0;
  const { rows: updated } = await sql<{ id: number }>`
    update accounts a set
      digest_due_at = ${isScheduled ? sql`p.due_at` : sql`a.digest_due_at`},
      digest_lease_owner = ${isScheduled ? sql`null` : sql`a.digest_lease_owner`},
      digest_lease_until = ${isScheduled ? sql`null` : sql`a.digest_lease_until`},
      last_digest_date = coalesce(p.built_for, a.last_digest_date),
      queue_version = a.queue_version + (case when p.built_for is null then 0 else 1 end)
    from unnest(
      ${column((p) => p.accountId)}::int[], ${column((p) => p.scheduled?.dueAt ?? null)}::text[],
      ${column((p) => p.scheduled?.owner ?? null)}::text[], ${column((p) => p.builtFor ?? null)}::text[]
    ) as p(id, due_at, owner, built_for)
    where a.id = p.id ${isScheduled ? sql`and a.digest_lease_owner = p.owner` : sql``}
    returning a.id`.execute(db);
  const done = new Set(updated.map((r) => r.id));
  return rows.filter((p) => !done.has(p.accountId)).map((p) => p.accountId);
}

/** Accounts never scheduled yet (created before digests existed), oldest first. */
export async function unscheduledAccounts(db: Kysely<Database>, limit: number): Promise<Account[]> {
  const rows = await db
    .selectFrom('accounts')
    .select(columns)
    .where('digest_due_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toAccount);
}

/** Schedules an account that has no due time yet; leaves one that another worker scheduled meanwhile. */
export async function scheduleAccount(
  db: Kysely<Database>,
  accountId: number,
  dueAt: Timestamp,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ digest_due_at: dueAt })
    .where('id', '=', accountId)
    .where('digest_due_at', 'is', null)
    .execute();
}
