import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * The wallabag API's default order (issue 35, point 6): every entry of an account newest saved first,
 * whatever its state, which 0031's (account_id, state, saved_at) cannot give without sorting the whole list
 * a page. With this index a page of 100 out of 10,000 reads its ids in order (bench:clients).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX reading_list_account_saved_idx ON reading_list (account_id, saved_at, id)`.execute(
    db,
  );
}
