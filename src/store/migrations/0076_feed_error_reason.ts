import type { Kysely } from 'kysely';

/**
 * Why a feed's last fetch failed, as a code beside `last_error`'s English words (issue 36): the fetcher's
 * code (src/errors.ts FetchErrorCode), `not_a_feed`, `store` or `internal`, and for `http_status` the
 * status the server answered. The feeds page words the code in the reader's language; rows written
 * before this have no code and keep showing their words.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('feeds').addColumn('last_error_reason', 'text').execute();
  await db.schema.alterTable('feeds').addColumn('last_error_status', 'integer').execute();
}
