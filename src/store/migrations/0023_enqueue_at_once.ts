import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * The API's usual save transaction as one function call (issue 14, part 1: POST on PostgreSQL), PostgreSQL
 * only; see store/queueItemBatches.ts, createQueueItemsAtOnce, for when it is called and what it answers.
 *
 * It replaces two statements sent together: a lock of the queues and an insert guarded by CTEs that read
 * which URLs were waiting. PostgreSQL parsed and planned both on every call, about 0.5 ms of its CPU a
 * batch, more than the batch's writes. A PL/pgSQL function keeps its statements parsed and their plans
 * cached: the INSERT over unnest has no choice to make, and the lock of one account by its id is cheap
 * either way and planned again whenever accounts is analysed (its every save updates it, so autovacuum
 * does that often). The two statements whose plan could go badly wrong as tables grow (the lock of several
 * accounts, a join; the look-up of waiting URLs) are planned on every call (EXECUTE): a look-up plan
 * cached while queue_items was small scanned the whole table for every save once it was large (measured:
 * from 0.8 to 5 ms a call over 40,000 saves).
 *
 * Steps, in one transaction (the caller's statement):
 * 1. the queues' locks, in account id order, each version advanced by its number of offers (as lockQueues);
 * 2. unless every version is then the one expected, nothing more: `wrote` is false (the caller runs the
 *    general transaction instead);
 * 3. the rows inserted in order, a URL already waiting skipped (ON CONFLICT DO NOTHING);
 * 4. the URLs skipped, read with their items: a URL whose save gave a title (`titled`) may be renamed,
 *    which the caller must plan from what is read, so the function then fails with SQLSTATE TDW01 and
 *    the whole transaction is rolled back.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`
    CREATE FUNCTION tidings_enqueue_at_once(
      queue_ids int[], queue_changes int[], queue_expected int[],
      account_ids int[], urls text[], url_keys text[], titles text[], sources text[], feed_ids int[],
      summaries text[], published text[], images text[], titled bool[], at text,
      OUT wrote boolean, OUT inserted int, OUT waiting json)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      versions int[];
      new_ids int[];
      renames boolean;
    BEGIN
      IF cardinality(queue_ids) = 1 THEN
        UPDATE accounts SET queue_version = queue_version + queue_changes[1] WHERE id = queue_ids[1]
          RETURNING ARRAY[queue_version] INTO versions;
      ELSE
        EXECUTE 'WITH locked AS MATERIALIZED (
            SELECT id FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE
          ), bumped AS (
            UPDATE accounts a SET queue_version = a.queue_version + c.changes
            FROM locked JOIN unnest($1, $2) AS c(id, changes) ON c.id = locked.id
            WHERE a.id = locked.id
            RETURNING a.id, a.queue_version
          )
          SELECT array_agg(queue_version ORDER BY id) FROM bumped'
          INTO versions USING queue_ids, queue_changes;
      END IF;
      wrote := versions IS NOT DISTINCT FROM queue_expected;
      inserted := 0;
      IF NOT wrote THEN
        RETURN;
      END IF;
      WITH rows AS (
        INSERT INTO queue_items
          (account_id, url, url_key, title, source, feed_id, summary, published_at, image_url, created_at, updated_at)
        SELECT r.account_id, r.url, r.url_key, r.title, r.source, r.feed_id, r.summary, r.published_at, r.image_url,
          at, at
        FROM unnest(account_ids, urls, url_keys, titles, sources, feed_ids, summaries, published, images)
          WITH ORDINALITY AS r(account_id, url, url_key, title, source, feed_id, summary, published_at, image_url, n)
        ORDER BY r.n
        ON CONFLICT (account_id, url_key) DO NOTHING
        RETURNING id
      )
      SELECT count(*), array_agg(id) INTO inserted, new_ids FROM rows;
      IF inserted < cardinality(url_keys) THEN
        EXECUTE 'SELECT json_agg(json_build_object(''accountId'', q.account_id, ''urlKey'', q.url_key,
              ''id'', q.id, ''title'', q.title)), coalesce(bool_or(k.titled), false)
          FROM unnest($1, $2, $3) AS k(account_id, url_key, titled)
          JOIN queue_items q ON q.account_id = k.account_id AND q.url_key = k.url_key
          WHERE q.id <> ALL(coalesce($4, ''{}''))'
          INTO waiting, renames USING account_ids, url_keys, titled, new_ids;
        IF renames THEN
          RAISE EXCEPTION 'a URL saved with a title is already waiting' USING ERRCODE = 'TDW01';
        END IF;
      END IF;
    END $fn$`.execute(db);
}
