import type { Kysely } from 'kysely';

/**
 * Send to an e-reader (issue 27, point 5).
 *
 * - accounts.ereader_email: an address each digest's EPUB is mailed to (Send-to-Kindle and the like); null:
 *   none.
 * - digests.ereader_state: where that copy stands, tracked apart from the email's `delivery` so that a
 *   failure of one never sends the other again: null when the digest has no e-reader copy (no address at
 *   the build, or built before this), else as `delivery` ('pending', 'sending', 'sent', 'failed',
 *   'not_emailed', 'no_smtp'), with its own attempts, next attempt, lease and last error.
 *
 * Digests built before stay null: an address set now takes effect from the next digest.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('ereader_email', 'text').execute();
  await db.schema.alterTable('digests').addColumn('ereader_state', 'text').execute();
  await db.schema
    .alterTable('digests')
    .addColumn('ereader_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const column of [
    'ereader_next_attempt_at',
    'ereader_error',
    'ereader_sent_at',
    'ereader_lease_owner',
    'ereader_lease_until',
  ]) {
    await db.schema.alterTable('digests').addColumn(column, 'text').execute();
  }
  // The claim walks pending copies by their next attempt, as the email's (delivery, next_attempt_at) index.
  await db.schema
    .createIndex('digests_ereader_due_idx')
    .on('digests')
    .columns(['ereader_state', 'ereader_next_attempt_at'])
    .execute();
}
