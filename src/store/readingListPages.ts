import { type Kysely, sql } from 'kysely';
import { type PageRow, insertMissingPages } from './pages.js';
import type { Database, Timestamp } from './schema.js';

/**
 * The paced reader's storage (articles/pacedReader.ts): reading-list items linked to the page of their
 * URL, paced pages claimed one host at a time, host leases. The page's read itself is recorded by
 * store/pages.ts, as any page's; migration 0033 explains the columns.
 */

/**
 * Links up to `limit` reading-list items that have no text of their own and no page yet to the page of
 * their URL (shared with queue items: one page per `url_key`), creating it paced and due at once when
 * there is none. An item whose URL already has a page takes it as it is (read, failed, or waiting for the
 * queue's reader). Returns how many items were linked; one transaction.
 */
export async function linkReadingItems(
  db: Kysely<Database>,
  input: { now: Timestamp; limit: number },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const items = await trx
      .selectFrom('reading_list')
      .select(['id', 'url', 'url_key'])
      .where('page_id', 'is', null)
      .where('html', 'is', null)
      .orderBy('id')
      .limit(input.limit)
      .execute();
    if (items.length === 0) return 0;
    const byKey = new Map(items.map((i) => [i.url_key, i.url]));
    await insertMissingPages(trx, byKey, input.now, true);
    await trx
      .updateTable('reading_list')
      .set((eb) => ({
        page_id: eb
          .selectFrom('pages')
          .select('pages.id')
          .whereRef('pages.url_key', '=', 'reading_list.url_key'),
      }))
      .where(
        'id',
        'in',
        items.map((i) => i.id),
      )
      .execute();
    return items.length;
  });
}

/** Free hosts looked at per claim: enough that one taken meanwhile by another worker is passed over. */
const CANDIDATES = 20;

/**
 * Leases one due paced page to `owner` until `leaseUntil`, with its host: hosts another read holds (or
 * that rest after one) are passed over. The host is taken first (an upsert that only takes an expired
 * lease: atomic on both engines, so two workers never hold one host), then the page (only while still due
 * and unclaimed); a page lost to another worker gives its host back. Null when no page is due on a free
 * host. The attempt is counted, as claimDuePages does.
 *
 * The hosts with paced pages are walked one index seek each (a recursive query: the next host after the
 * last; ORDER BY … LIMIT 1 rather than min(), which PostgreSQL without statistics reads whole), in name order, and each free one gives its earliest due page: the cost grows with the hosts, not
 * with the pages (2,000 links of one resting host are not read through to find another's).
 */
export async function claimPacedPage(
  db: Kysely<Database>,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp },
): Promise<PageRow | null> {
  const { rows } = await sql<{ id: number; host: string }>`
    with recursive hosts (host) as (
      select (select host from pages where state = 'pending' and paced = 1 and host is not null
        order by host limit 1)
      union all
      select (select p.host from pages p
        where p.state = 'pending' and p.paced = 1 and p.host > hosts.host order by p.host limit 1)
      from hosts where hosts.host is not null
    )
    select c.id, c.host from (
      select h.host, (
        select p.id from pages p
        where p.host = h.host and p.state = 'pending' and p.paced = 1 and p.next_attempt_at <= ${input.now}
          and (p.lease_until is null or p.lease_until < ${input.now})
        order by p.next_attempt_at, p.id
        limit 1
      ) as id
      from hosts h
      where h.host is not null
        and not exists (select 1 from page_host_leases l where l.host = h.host and l.lease_until > ${input.now})
    ) c
    where c.id is not null
    limit ${CANDIDATES}`.execute(db);
  for (const { id, host } of rows) {
    if (!(await takeHost(db, host, input))) continue;
    const { rows: claimed } = await sql<PageRow>`
      update pages set lease_owner = ${input.owner}, lease_until = ${input.leaseUntil}, attempts = attempts + 1
      where id = ${id} and state = 'pending' and paced = 1 and next_attempt_at <= ${input.now}
        and (lease_until is null or lease_until < ${input.now})
      returning *`.execute(db);
    const page = claimed[0];
    if (page !== undefined) return page;
    await db
      .deleteFrom('page_host_leases')
      .where('host', '=', host)
      .where('lease_owner', '=', input.owner)
      .execute();
  }
  return null;
}

/** Takes the host's lease when nobody holds it (no row, or an expired one); true when taken. */
async function takeHost(
  db: Kysely<Database>,
  host: string,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp },
): Promise<boolean> {
  const taken = await db
    .insertInto('page_host_leases')
    .values({ host, lease_owner: input.owner, lease_until: input.leaseUntil })
    .onConflict((oc) =>
      oc
        .column('host')
        .doUpdateSet((eb) => ({
          lease_owner: eb.ref('excluded.lease_owner'),
          lease_until: eb.ref('excluded.lease_until'),
        }))
        .where('page_host_leases.lease_until', '<=', input.now),
    )
    .returning('host')
    .executeTakeFirst();
  return taken !== undefined;
}

/**
 * Ends `owner`'s read of a host: the host stays taken until `restUntil` (the rest between two reads of
 * one host), then any worker may take it. Nothing when the lease has passed to another worker.
 */
export async function restHost(
  db: Kysely<Database>,
  host: string,
  owner: string,
  restUntil: Timestamp,
): Promise<void> {
  await db
    .updateTable('page_host_leases')
    .set({ lease_until: restUntil })
    .where('host', '=', host)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Forgets the host leases that have run out (one row per host ever read would otherwise stay). */
export async function forgetHostLeases(db: Kysely<Database>, now: Timestamp): Promise<number> {
  const result = await db.deleteFrom('page_host_leases').where('lease_until', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * True while the queue's reader has pages due or under way (not paced, pending, their time come): the
 * paced reader then waits, so that a saved link's page is read first. Literals in the WHERE, so that
 * pages_due_idx answers.
 */
export async function queueReaderBusy(db: Kysely<Database>, now: Timestamp): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    select 1 as one from pages where state = 'pending' and paced = 0 and next_attempt_at <= ${now}
    limit 1`.execute(db);
  return rows.length > 0;
}

/** When the earliest pending paced page is next due (its host free or not), or null when none is. */
export async function nextPacedPageDueAt(db: Kysely<Database>): Promise<Timestamp | null> {
  const { rows } = await sql<{ at: Timestamp | null }>`
    select min(next_attempt_at) as at from pages where state = 'pending' and paced = 1`.execute(db);
  return rows[0]?.at ?? null;
}
