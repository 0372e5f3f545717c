import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * The wallabag API's other orders read in their index too (issue 35, point 6; bench:clients), as 0051 made
 * the default one: a page is ordered by its date and then the id (so that it never changes between two
 * requests), which PostgreSQL could read from 0050's (account_id, updated_at) and 0031's
 * (account_id, state, saved_at) only by sorting every entry of the account (`sort=updated`, the Android
 * app's sync) or each run of equal dates (`archive=0`, KOReader's list). The same indexes with the id at
 * their end replace them: every query that used the old ones reads the new ones' leading columns. SQLite
 * ends each index with the rowid already; it gets the same schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX reading_list_updated_idx`.execute(db);
  await sql`CREATE INDEX reading_list_updated_idx ON reading_list (account_id, updated_at, id)`.execute(db);
  await sql`DROP INDEX reading_list_saved_idx`.execute(db);
  await sql`CREATE INDEX reading_list_saved_idx ON reading_list (account_id, state, saved_at, id)`.execute(
    db,
  );
}
