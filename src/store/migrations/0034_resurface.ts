import { type Kysely, sql } from 'kysely';

/**
 * Resurfacing the reading list in digests (issue 27, point 3), on 0031's columns.
 *
 * - digest_reading_items: the reading-list items a digest offered in its "From your reading list" section,
 *   in the section's order (`position`, 0-based), written in the build's transaction with the digest. They
 *   are apart from digest_items: they never left a queue, take no position among the digest's items (its
 *   pages, counts and search documents stay what choose.ts made them), and the digest's private action
 *   links name them by `reading_id`. A reading-list item deleted takes its rows with it.
 * - reading_list.kept_at: "Keep for tomorrow" from a digest's link (when; null: not kept). The next digest
 *   offers kept items before any other, and clears the mark.
 * - reading_list_offer_idx: the build's choice walks an account's unread items by when they were last
 *   offered (never first), then saved: (account_id, state, offered_at, saved_at); reading_list_kept_idx,
 *   partial, finds the few kept ones without reading the rest.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('reading_list').addColumn('kept_at', 'text').execute();
  await db.schema
    .createTable('digest_reading_items')
    .addColumn('digest_id', 'integer', (c) => c.notNull().references('digests.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('reading_id', 'integer', (c) => c.notNull().references('reading_list.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('digest_reading_items_pk', ['digest_id', 'position'])
    .addUniqueConstraint('digest_reading_items_item_unique', ['digest_id', 'reading_id'])
    .execute();
  await sql`CREATE INDEX digest_reading_items_reading_idx ON digest_reading_items (reading_id)`.execute(db);
  await sql`CREATE INDEX reading_list_kept_idx ON reading_list (account_id, kept_at) WHERE kept_at IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX reading_list_offer_idx ON reading_list (account_id, state, offered_at, saved_at)`.execute(
    db,
  );
}
