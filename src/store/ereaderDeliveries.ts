import type { Kysely } from 'kysely';
import { type ClaimInput, type DeliveryColumns, claimDue } from './deliveryClaims.js';
import type { Engine } from './db.js';
import type { Digest } from './digests.js';
import type { Database, Timestamp } from './schema.js';

/**
 * The e-reader copy's delivery (migration 0032): the same lease-and-backoff state machine as the email's
 * (digests.ts: claimDueDeliveries, recordDelivery), on the digest's `ereader_*` columns, so that either
 * can fail, retry or be given up without touching the other.
 */
export async function claimDueEreaderCopies(
  db: Kysely<Database>,
  engine: Engine,
  input: ClaimInput,
): Promise<Digest[]> {
  return claimDue(db, engine, EREADER_COLUMNS, input);
}

const EREADER_COLUMNS: DeliveryColumns = {
  state: 'ereader_state',
  attempts: 'ereader_attempts',
  nextAttemptAt: 'ereader_next_attempt_at',
  leaseOwner: 'ereader_lease_owner',
  leaseUntil: 'ereader_lease_until',
};

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
