import type { Kysely } from 'kysely';

/**
 * Work that only one process of an instance may do at a time (issue 34: the IMAP watcher, which reads one
 * mailbox): a named lease, held by one worker (lib/workers.ts workerId) until `expires_at` (ISO 8601, UTC).
 * The holder renews it well before then; another process takes it only once it has expired, so a holder
 * killed -9 hands over after one lifetime. store/workerLeases.ts reads and writes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_leases')
    .addColumn('name', 'text', (c) => c.primaryKey().notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
