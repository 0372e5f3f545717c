import type { Kysely } from 'kysely';

/**
 * Feed items a subscription's rules would have queued and that could not be (issue 12): an item without a
 * link, a link the queue refuses (not http(s), longer than 2,048 characters), a full queue. Until now such
 * an item was only logged at debug level; now each is counted on its subscription, with why the last one
 * was not queued, for `tidings feed list` and the web's Feeds page.
 *
 * - subscriptions.skipped_items: how many, since the subscription was made (0 for existing ones).
 * - subscriptions.last_skip_reason: the last one's reason in plain words; null until one is skipped.
 * - subscriptions.last_skipped_at: when.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('subscriptions')
    .addColumn('skipped_items', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('subscriptions').addColumn('last_skip_reason', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('last_skipped_at', 'text').execute();
}
