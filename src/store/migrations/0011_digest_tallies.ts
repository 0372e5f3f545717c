import { type Kysely, sql } from 'kysely';

/**
 * What a digest holds, counted once when it is built: digests.saved_count (items saved through the API)
 * and digests.feed_count (the feeds its other items came from), beside item_count. A rendering shows only
 * part of a large digest (a page, the first items of an email or Atom entry) but says what the whole
 * holds; counting 10,000 rows on every read is what this avoids.
 *
 * Digests built before this are counted here, with this migration's own copy of the rule: one feed per
 * feed id, else per the feed name kept for an item whose feed was since removed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('digests')
    .addColumn('saved_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('digests')
    .addColumn('feed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    update digests set
      saved_count = (
        select count(*) from digest_items i where i.digest_id = digests.id and i.source = 'api'
      ),
      feed_count = (
        select count(distinct case
          when i.feed_id is not null then 'i' || cast(i.feed_id as text)
          else 't' || coalesce(i.feed_title, '') end)
        from digest_items i where i.digest_id = digests.id and i.source = 'feed'
      )`.execute(db);
}
