import { type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from './db.js';
import { type ClaimInput, type DeliveryColumns, claimDue } from './deliveryClaims.js';
import type { Database, DeliveryState, DigestsTable, Timestamp } from './schema.js';

export type Digest = Selectable<DigestsTable>;

export interface NewDigest {
  /** From nextDigestId, so that the Message-ID (made from it) is written with the row. */
  id?: number;
  localDate: string;
  createdAt: Timestamp;
  itemCount: number;
  /** Of the items, those saved through the API, and the feeds the others came from. */
  savedCount: number;
  feedCount: number;
  remaining: number;
  /** Entries the email shows (migration 0025); null: every item (as digests built before it). */
  shownCount?: number | null;
  delivery: DeliveryState;
  nextAttemptAt: Timestamp | null;
  /** The stable Message-ID every attempt to email the digest sends. */
  messageId: string;
  /** Its e-reader copy (0032): null or absent when the account has no e-reader address. */
  ereaderState?: DeliveryState | null;
}

/**
 * Creates the account's digest for a local day; null when that day already has one (the UNIQUE
 * constraint on account and day: a digest is never built twice).
 */
export async function createDigest(
  db: Kysely<Database>,
  accountId: number,
  d: NewDigest,
): Promise<Digest | null> {
  return (await createDigests(db, [{ accountId, ...d }]))[0] ?? null;
}

/**
 * createDigest for several accounts' digests in one statement; returns those written (a day that already
 * has its digest is left out).
 */
export async function createDigests(
  db: Kysely<Database>,
  digests: readonly (NewDigest & { accountId: number })[],
): Promise<Digest[]> {
  if (digests.length === 0) return [];
  return db
    .insertInto('digests')
    .values(
      digests.map((d) => ({
        ...(d.id === undefined ? {} : { id: d.id }),
        account_id: d.accountId,
        local_date: d.localDate,
        created_at: d.createdAt,
        item_count: d.itemCount,
        saved_count: d.savedCount,
        feed_count: d.feedCount,
        remaining: d.remaining,
        shown_count: d.shownCount ?? null,
        delivery: d.delivery,
        next_attempt_at: d.nextAttemptAt,
        message_id: d.messageId,
        ereader_state: d.ereaderState ?? null,
        // Due at once, as the email: the build and its copy's state are one commit.
        ereader_next_attempt_at: d.ereaderState === 'pending' ? d.createdAt : null,
      })),
    )
    .onConflict((oc) => oc.columns(['account_id', 'local_date']).doNothing())
    .returningAll()
    .execute();
}

/**
 * The ids the next `count` digests will have, for a builder that holds the write lock: the Message-ID is
 * made from it before the row is written. PostgreSQL takes them from the column's sequence (never handed
 * out twice); on SQLite the builder's write transaction holds the database, and AUTOINCREMENT's counter is
 * read.
 */
export async function nextDigestIds(db: Kysely<Database>, engine: Engine, count: number): Promise<number[]> {
  if (count === 0) return [];
  if (engine === 'postgres') {
    const { rows } = await sql<{ id: string | number }>`
      select nextval(pg_get_serial_sequence('digests', 'id')) as id from generate_series(1, ${count})
    `.execute(db);
    return rows.map((r) => Number(r.id));
  }
  const { rows } = await sql<{
    id: number;
  }>`select coalesce((select seq from sqlite_sequence where name = 'digests'), 0) as id`.execute(db);
  const last = Number(rows[0]?.id);
  return Array.from({ length: count }, (_, i) => last + 1 + i);
}

/** The account's digest with this id; null when there is none or it is another account's. */
export async function digestById(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
): Promise<Digest | null> {
  const row = await db
    .selectFrom('digests')
    .selectAll()
    .where('id', '=', digestId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}

/** The account a digest belongs to (for the operator, who names digests by id alone); null when none. */
export async function accountIdOfDigest(db: Kysely<Database>, digestId: number): Promise<number | null> {
  const row = await db
    .selectFrom('digests')
    .select('account_id')
    .where('id', '=', digestId)
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/** The ids of the account's digests built just before and just after `digest` (by build time), if any. */
export async function neighbourDigestIds(
  db: Kysely<Database>,
  accountId: number,
  digest: Pick<Digest, 'id' | 'created_at'>,
): Promise<{ previous: number | null; next: number | null }> {
  const { id, created_at: at } = digest;
  const side = (before: boolean) =>
    db
      .selectFrom('digests')
      .select('id')
      .where('account_id', '=', accountId)
      .where((eb) =>
        eb.or([
          eb('created_at', before ? '<' : '>', at),
          eb.and([eb('created_at', '=', at), eb('id', before ? '<' : '>', id)]),
        ]),
      )
      .orderBy('created_at', before ? 'desc' : 'asc')
      .orderBy('id', before ? 'desc' : 'asc')
      .limit(1)
      .executeTakeFirst();
  const [previous, next] = await Promise.all([side(true), side(false)]);
  return { previous: previous?.id ?? null, next: next?.id ?? null };
}

/** The local days (YYYY-MM-DD) from `fromDate` on that already have one of the account's digests. */
export async function digestDatesFrom(
  db: Kysely<Database>,
  accountId: number,
  fromDate: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('digests')
    .select('local_date')
    .where('account_id', '=', accountId)
    .where('local_date', '>=', fromDate)
    .execute();
  return new Set(rows.map((r) => r.local_date));
}

/**
 * digestDatesFrom for several accounts: each one's digests of the local days from `fromDate` on, by account
 * and day.
 */
export async function digestDaysOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
  fromDate: string,
): Promise<Map<number, Map<string, number>>> {
  const days = new Map<number, Map<string, number>>(accountIds.map((id) => [id, new Map()]));
  if (accountIds.length === 0) return days;
  const rows = await db
    .selectFrom('digests')
    .select(['account_id', 'local_date', 'id'])
    .where('account_id', 'in', accountIds)
    .where('local_date', '>=', fromDate)
    .execute();
  for (const r of rows) days.get(r.account_id)?.set(r.local_date, r.id);
  return days;
}

export async function digestByDate(
  db: Kysely<Database>,
  accountId: number,
  localDate: string,
): Promise<Digest | null> {
  const row = await db
    .selectFrom('digests')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('local_date', '=', localDate)
    .executeTakeFirst();
  return row ?? null;
}

/** The email's delivery columns (claimDue in deliveryClaims.ts also claims the e-reader copy's). */
const EMAIL_COLUMNS: DeliveryColumns = {
  state: 'delivery',
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  leaseOwner: 'lease_owner',
  leaseUntil: 'lease_until',
};

/**
 * Leases up to `limit` digests whose email is due to `owner`: pending ones whose next attempt has come,
 * and ones left `sending` by a worker whose lease ran out (it crashed mid-send). See claimDue.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  engine: Engine,
  input: ClaimInput,
): Promise<Digest[]> {
  return claimDue(db, engine, EMAIL_COLUMNS, input);
}

/** Where an attempt left the email. */
export type DeliveryUpdate =
  | { delivery: 'sent'; sentAt: Timestamp }
  | { delivery: 'pending'; nextAttemptAt: Timestamp; error: string }
  | { delivery: 'failed' | 'not_emailed'; error: string };

/** Records an attempt's outcome and releases the lease, only if `owner` still holds it; false otherwise. */
export async function recordDelivery(
  db: Kysely<Database>,
  digestId: number,
  owner: string,
  u: DeliveryUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('digests')
    .set({
      delivery: u.delivery,
      lease_owner: null,
      lease_until: null,
      ...(u.delivery === 'sent'
        ? { sent_at: u.sentAt, next_attempt_at: null, last_error: null }
        : u.delivery === 'pending'
          ? { next_attempt_at: u.nextAttemptAt, last_error: u.error }
          : { next_attempt_at: null, last_error: u.error }),
    })
    .where('id', '=', digestId)
    .where('delivery', '=', 'sending')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A page of the account's digests, newest day first (the web app's archive). */
export async function digestsPage(
  db: Kysely<Database>,
  accountId: number,
  page: { offset: number; limit: number },
): Promise<Digest[]> {
  return db
    .selectFrom('digests')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('local_date', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function digestCount(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('digests')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}
