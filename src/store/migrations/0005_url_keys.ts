import { type Kysely, sql } from 'kysely';
import { normaliseUrl, urlKey } from '../../queue/url.js';

const BATCH = 1000;

/**
 * Queue items are deduplicated by their normal URL itself instead of its SHA-256 (see urlKey in
 * src/queue/url.ts): recomputes every waiting item's key from its URL. Old keys are 64 hex digits and
 * new ones start with "http" or "sha256:", so the two never meet in the unique index; should two items of
 * an account come out with the same key, the later one is a duplicate by the queue's own rule and goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; account_id: number; url: string }>`
      select id, account_id, url from queue_items where id > ${after} order by id limit ${BATCH}`.execute(db);
    const last = rows.at(-1);
    if (last === undefined) return;
    for (const row of rows) {
      const key = urlKey(normaliseUrl(row.url));
      const { rows: taken } = await sql<{ id: number }>`
        select id from queue_items where account_id = ${row.account_id} and url_key = ${key}`.execute(db);
      if (taken.some((t) => t.id !== row.id)) {
        await sql`delete from queue_items where id = ${row.id}`.execute(db);
      } else {
        await sql`update queue_items set url_key = ${key} where id = ${row.id}`.execute(db);
      }
    }
    after = last.id;
  }
}
