import { type Kysely, sql } from 'kysely';

/**
 * Reading the pages of reading-list links in the background (issue 27, point 2), at a gentle pace and
 * after the queue's own pages.
 *
 * - pages.paced: 1 while only reading-list items want the page: the paced reader (articles/pacedReader.ts)
 *   reads it, one fetch at a time per host; the queue's reader leaves it alone. 0 (every page before
 *   this): the queue's reader's. A page a saved link (or a feed item) comes to want is set to 0 when it is
 *   linked (store/pages.ts linkUnreadItems), and is then read at the queue's speed.
 * - pages.host: the host (with its port) of `url`, set on paced pages: the per-host rule asks for it in SQL.
 * - pages_due_idx, the queue reader's work list, is made again without paced pages (thousands of imported
 *   links due at once would otherwise sit at its front, walked by each claim); pages_paced_idx is the
 *   paced reader's (when the next is due), pages_paced_host_idx its work list by host: a claim walks the
 *   hosts, not the pages (100,000 pages of one resting host cost a claim 85 ms walked page by page).
 * - reading_list_unlinked_idx: items with neither their own text nor a page yet, what is linked next.
 * - page_host_leases: one row per host a paced read holds (or has just held): taken by one worker at a time
 *   (an upsert that only takes an expired row), kept a few seconds past the fetch so that one host is never
 *   asked twice in a row, across every process that reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('pages')
    .addColumn('paced', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('pages').addColumn('host', 'text').execute();
  await sql`DROP INDEX pages_due_idx`.execute(db);
  await sql`CREATE INDEX pages_due_idx ON pages (next_attempt_at) WHERE state = 'pending' AND paced = 0`.execute(
    db,
  );
  await sql`CREATE INDEX pages_paced_idx ON pages (next_attempt_at) WHERE state = 'pending' AND paced = 1`.execute(
    db,
  );
  await sql`CREATE INDEX pages_paced_host_idx ON pages (host, next_attempt_at) WHERE state = 'pending' AND paced = 1`.execute(
    db,
  );
  await sql`CREATE INDEX reading_list_unlinked_idx ON reading_list (id) WHERE page_id IS NULL AND html IS NULL`.execute(
    db,
  );
  await db.schema
    .createTable('page_host_leases')
    .addColumn('host', 'text', (c) => c.primaryKey())
    .addColumn('lease_owner', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .execute();
}
