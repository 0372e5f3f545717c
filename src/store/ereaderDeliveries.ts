import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Engine } from './db.js';
import type { Digest } from './digests.js';
import type { Database, Timestamp } from './schema.js';

/**
 * The e-reader copy's delivery (migration 0028): the same lease-and-backoff state machine as the email's
 * (digests.ts: claimDueDeliveries, recordDelivery), on the digest's `ereader_*` columns, so that either
 * can fail, retry or be given up without touching the other.
 */
export async function claimDueEreaderCopies(
  db: Kysely<Database>,
  engine: Engine,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp; limit: number; accountId?: number },
): Promise<Digest[]> {
  const stale = await claim(
    db,
    engine,
    input,
    sql`ereader_state = 'sending' and ereader_lease_until < ${input.now}`,
  );
  if (stale.length >= input.limit) return stale;
  const due = await claim(
    db,
    engine,
    { ...input, limit: input.limit - stale.length },
    sql`ereader_state = 'pending' and ereader_next_attempt_at <= ${input.now}`,
  );
  return [...stale, ...due];
}

async function claim(
  db: Kysely<Database>,
  engine: Engine,
  input: { owner: string; leaseUntil: Timestamp; limit: number; accountId?: number },
  due: RawBuilder<unknown>,
): Promise<Digest[]> {
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const only = input.accountId === undefined ? sql`` : sql`and account_id = ${input.accountId}`;
  const result = await sql<Digest>`
    update digests
    set ereader_state = 'sending', ereader_lease_owner = ${input.owner},
        ereader_lease_until = ${input.leaseUntil}, ereader_attempts = ereader_attempts + 1
    where id in (
      select id from digests
      where ${due} ${only}
        and account_id not in (select a.id from accounts a where a.disabled_at is not null)
      order by ereader_next_attempt_at, id
      limit ${input.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}

/** Where an attempt left the e-reader copy. */
export type EreaderUpdate =
  | { state: 'sent'; sentAt: Timestamp }
  | { state: 'pending'; nextAttemptAt: Timestamp; error: string }
  | { state: 'failed' | 'not_emailed'; error: string };

/** Records an attempt's outcome and releases the lease, only if `owner` still holds it; false otherwise. */
export async function recordEreaderCopy(
  db: Kysely<Database>,
  digestId: number,
  owner: string,
  u: EreaderUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('digests')
    .set({
      ereader_state: u.state,
      ereader_lease_owner: null,
      ereader_lease_until: null,
      ...(u.state === 'sent'
        ? { ereader_sent_at: u.sentAt, ereader_next_attempt_at: null, ereader_error: null }
        : u.state === 'pending'
          ? { ereader_next_attempt_at: u.nextAttemptAt, ereader_error: u.error }
          : { ereader_next_attempt_at: null, ereader_error: u.error }),
    })
    .where('id', '=', digestId)
    .where('ereader_state', '=', 'sending')
    .where('ereader_lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
