import { type Kysely, sql } from 'kysely';

/**
 * When a subscription had its first fill (the items of the backfill window): null until then. The worker
 * that stores a feed's fetch fills every subscription still without one, whoever holds the feed's lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('backfilled_at', 'text').execute();
  // Subscriptions to a feed that was fetched have had their fill; the others get it at the first success.
  await sql`
    update subscriptions set backfilled_at = created_at
    where feed_id in (select id from feeds where last_success_at is not null)`.execute(db);
}
