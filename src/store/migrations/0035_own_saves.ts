import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * A person's save of a URL a feed queued, and notices of links to read (issue 33, points 1 and 5).
 * PostgreSQL only: on SQLite nothing here is needed (the one-call save and the change feed are
 * PostgreSQL's).
 *
 * 1. tidings_enqueue_at_once (migration 0023) is replaced, with the same arguments and answers. The one
 *    rule that changes: it also fails with SQLSTATE TDW01 (the whole transaction rolled back) when a URL
 *    it skipped was waiting from another source than the save's (a feed's item, which a person's save
 *    makes theirs: src/queue/plan.ts planQueue), and the waiting items it reads carry their `source`. The
 *    caller then plans and writes the save in the general transaction (src/queue/enqueue.ts enqueueMany),
 *    the same code on both engines. The usual save (a new URL, or one the person already saved) stays one
 *    call: the check is one more comparison in the look-up the function already made.
 * 2. Notices on 0020's channel `tidings_changes` (src/store/changeFeed.ts), sent at the commit of the
 *    writing transaction whichever code wrote:
 *    - `s<account id>` when a queue item that is not a feed's (a person's save) is inserted: its page is
 *      to be read (src/articles/worker.ts wakes);
 *    - `r<account id>` when a reading-list item with no text of its own is inserted (an import): its page
 *      is to be read at the reading list's pace (src/articles/pacedReader.ts wakes).
 *    One notice per row, folded by PostgreSQL into one per account and transaction. An instance of an
 *    earlier version that reads them drops what it caches (a notice it cannot read), which is safe during
 *    a rolling upgrade, as 0024 said of `q`.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`
    CREATE OR REPLACE FUNCTION tidings_enqueue_at_once(
      queue_ids int[], queue_changes int[], queue_expected int[],
      account_ids int[], urls text[], url_keys text[], titles text[], sources text[], feed_ids int[],
      summaries text[], published text[], images text[], titled bool[], at text,
      OUT wrote boolean, OUT inserted int, OUT waiting json)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      versions int[];
      new_ids int[];
      changes boolean;
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
              ''id'', q.id, ''title'', q.title, ''source'', q.source)),
            coalesce(bool_or(k.titled OR q.source <> k.source), false)
          FROM unnest($1, $2, $3, $4) AS k(account_id, url_key, titled, source)
          JOIN queue_items q ON q.account_id = k.account_id AND q.url_key = k.url_key
          WHERE q.id <> ALL(coalesce($5, ''{}''))'
          INTO waiting, changes USING account_ids, url_keys, titled, sources, new_ids;
        IF changes THEN
          RAISE EXCEPTION 'a URL saved with a title, or queued by a feed, is already waiting' USING ERRCODE = 'TDW01';
        END IF;
      END IF;
    END $fn$`.execute(db);

  await sql`
    CREATE FUNCTION tidings_notify_to_read() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('tidings_changes', TG_ARGV[0] || NEW.account_id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER queue_items_notify_saved AFTER INSERT ON queue_items FOR EACH ROW
    WHEN (NEW.source <> 'feed') EXECUTE FUNCTION tidings_notify_to_read('s')`.execute(db);
  await sql`
    CREATE TRIGGER reading_list_notify_imported AFTER INSERT ON reading_list FOR EACH ROW
    WHEN (NEW.html IS NULL) EXECUTE FUNCTION tidings_notify_to_read('r')`.execute(db);
}
