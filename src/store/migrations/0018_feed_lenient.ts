import type { Kysely } from 'kysely';

/**
 * Feeds read leniently (issue 15).
 *
 * - feeds.read_leniently: 1 when the feed's last document was not well-formed XML and was read by the
 *   recovering parse (Python feedparser's "bozo"), 0 otherwise; shown in `feed list` and on the Feeds page.
 *   Set at every fetch that gives a document; a 304 or an error leaves it as it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('feeds')
    .addColumn('read_leniently', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
