import { type Kysely, type Selectable, type Updateable, sql } from 'kysely';
import { hostOf } from '../lib/url.js';
import type { Engine } from './db.js';
import type { Database, PageKind, PagesTable, Timestamp } from './schema.js';

export type PageRow = Selectable<PagesTable>;

// ---- The page reader's work (src/articles/): link, claim, record, forget. ----

/**
 * Links up to `limit` unlinked queue items to their page, creating the page (pending, due at once) when
 * its URL has none yet: one page per `url_key`, whoever saved it. An item is read when it was saved
 * (source `api`: either API variant, the web page, the bookmarklet) or when its feed subscription asks for
 * the original pages (`fetch_original = 1`). Returns how many items were linked; one transaction.
 */
export async function linkUnreadItems(
  db: Kysely<Database>,
  input: { now: Timestamp; limit: number; accountId?: number },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const items = await trx
      .selectFrom('queue_items as q')
      .select(['q.id', 'q.url', 'q.url_key'])
      .where('q.page_id', 'is', null)
      .where((eb) =>
        eb.or([
          eb('q.source', '=', 'api'),
          eb.exists(
            eb
              .selectFrom('subscriptions as s')
              .select('s.id')
              .whereRef('s.account_id', '=', 'q.account_id')
              .whereRef('s.feed_id', '=', 'q.feed_id')
              .where('s.fetch_original', '=', 1),
          ),
        ]),
      )
      .$if(input.accountId !== undefined, (qb) => qb.where('q.account_id', '=', input.accountId ?? 0))
      .orderBy('q.id')
      .limit(input.limit)
      .execute();
    if (items.length === 0) return 0;
    const byKey = new Map(items.map((i) => [i.url_key, i.url]));
    await insertMissingPages(trx, byKey, input.now, false);
    // A page only the reading list wanted so far is read at the queue's speed from now on.
    await trx
      .updateTable('pages')
      .set({ paced: 0 })
      .where('paced', '=', 1)
      .where('url_key', 'in', [...byKey.keys()])
      .execute();
    await trx
      .updateTable('queue_items')
      .set((eb) => ({
        page_id: eb
          .selectFrom('pages')
          .select('pages.id')
          .whereRef('pages.url_key', '=', 'queue_items.url_key'),
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

/**
 * Leases up to `limit` due pages to `owner` until `leaseUntil`, counting the attempt. A page is due when
 * pending, its next attempt has come and nobody holds a live lease on it; with `accountId`, only pages one
 * of that account's queue items shows. FOR UPDATE SKIP LOCKED on PostgreSQL, as claimDueFeeds. Paced pages
 * (only the reading list wants them) are store/readingListPages.ts's, never claimed here.
 */
export async function claimDuePages(
  db: Kysely<Database>,
  engine: Engine,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp; limit: number; accountId?: number },
): Promise<PageRow[]> {
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const account =
    input.accountId === undefined
      ? sql``
      : sql`and exists (select 1 from queue_items q where q.page_id = pages.id and q.account_id = ${input.accountId})`;
  const result = await sql<PageRow>`
    update pages set lease_owner = ${input.owner}, lease_until = ${input.leaseUntil}, attempts = attempts + 1
    where id in (
      select id from pages
      where state = 'pending' and paced = 0 and next_attempt_at <= ${input.now}
        and (lease_until is null or lease_until < ${input.now})
        ${account}
      order by next_attempt_at, id
      limit ${input.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}

/** Everything a successful read stores. */
export interface PageRead {
  fetchedAt: Timestamp;
  httpStatus: number;
  finalUrl: string;
  kind: PageKind;
  title: string | null;
  description: string | null;
  siteName: string | null;
  author: string | null;
  publishedAt: Timestamp | null;
  language: string | null;
  /** 'rtl' or 'ltr' as the page declares it; null when it does not. */
  direction: 'rtl' | 'ltr' | null;
  canonicalUrl: string | null;
  image: { url: string; width: number | null; height: number | null; alt: string | null } | null;
  html: string | null;
  /** The plain text of `html` (what search reads); null when there is none. */
  text: string | null;
  wordCount: number;
  readingMinutes: number;
  mediaType: string | null;
  byteLength: number;
}

/** Stores a read and releases the lease, in one statement, only if `owner` still holds it; false otherwise. */
export async function recordPageRead(
  db: Kysely<Database>,
  pageId: number,
  owner: string,
  r: PageRead,
): Promise<boolean> {
  return updateUnderLease(db, pageId, owner, {
    state: 'read',
    next_attempt_at: null,
    fetched_at: r.fetchedAt,
    http_status: r.httpStatus,
    error: null,
    final_url: r.finalUrl,
    kind: r.kind,
    title: r.title,
    description: r.description,
    site_name: r.siteName,
    author: r.author,
    published_at: r.publishedAt,
    language: r.language,
    direction: r.direction,
    canonical_url: r.canonicalUrl,
    image_url: r.image?.url ?? null,
    image_width: r.image?.width ?? null,
    image_height: r.image?.height ?? null,
    image_alt: r.image?.alt ?? null,
    html: r.html,
    text: r.text,
    word_count: r.wordCount,
    reading_minutes: r.readingMinutes,
    media_type: r.mediaType,
    byte_length: r.byteLength,
  });
}

export interface PageFailure {
  fetchedAt: Timestamp;
  /** Plain words for a person. */
  error: string;
  httpStatus: number | null;
  /** When to try again; null: never (the page is failed). */
  nextAttemptAt: Timestamp | null;
}

/** Records a failed attempt and releases the lease, only if `owner` still holds it; false otherwise. */
export async function recordPageFailure(
  db: Kysely<Database>,
  pageId: number,
  owner: string,
  f: PageFailure,
): Promise<boolean> {
  return updateUnderLease(db, pageId, owner, {
    state: f.nextAttemptAt === null ? 'failed' : 'pending',
    next_attempt_at: f.nextAttemptAt,
    fetched_at: f.fetchedAt,
    http_status: f.httpStatus,
    error: f.error,
  });
}

/** Writes an attempt's outcome and releases the lease, in one statement, only while `owner` holds it. */
async function updateUnderLease(
  db: Kysely<Database>,
  pageId: number,
  owner: string,
  values: Updateable<PagesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('pages')
    .set({ ...values, lease_owner: null, lease_until: null })
    .where('id', '=', pageId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives a claimed page back unfetched (a worker stopping), uncounting the attempt, if `owner` holds it. */
export async function releasePage(db: Kysely<Database>, pageId: number, owner: string): Promise<void> {
  await db
    .updateTable('pages')
    .set((eb) => ({ lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', pageId)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Forgets the pages no queue item, no digest item and no reading-list item shows any more, among the
 * `scan` pages that follow id `after` (in id order): returns how many were deleted, and where the next
 * call goes on (`next`: the last id looked at, or 0 once the walk has reached the last page, so that it
 * starts again from the first). A call costs its window whatever the table holds: the page reader walks
 * the table a window a pass (with the whole table looked at every pass, 100,000 pages the reading list
 * shows took 31 ms of every pass to find nothing).
 */
export async function deleteUnusedPages(
  db: Kysely<Database>,
  window: { after: number; scan: number },
): Promise<{ deleted: number; next: number }> {
  const { after, scan } = window;
  const { rows } = await sql<{ id: number }>`
    select id from pages where id > ${after} order by id limit 1 offset ${Math.max(0, scan - 1)}`.execute(db);
  const last = rows[0]?.id ?? null;
  // One index probe per page of the window and table: written as NOT EXISTS, PostgreSQL made them one hash
  // anti-join that read the whole reading list (100,000 rows, 180 ms) for 1,000 pages.
  const result = await sql`
    delete from pages
    where id > ${after} ${last === null ? sql`` : sql`and id <= ${last}`}
      and (select 1 from queue_items q where q.page_id = pages.id limit 1) is null
      and (select 1 from digest_items d where d.page_id = pages.id limit 1) is null
      and (select 1 from reading_list r where r.page_id = pages.id limit 1) is null`.execute(db);
  return { deleted: Number(result.numAffectedRows ?? 0n), next: last ?? 0 };
}

/** When the earliest pending page of the queue's reader (not paced) is next due, or null when none is. */
export async function nextPageDueAt(db: Kysely<Database>): Promise<Timestamp | null> {
  // Literals, not parameters: the partial index pages_due_idx is used only when the query implies its WHERE.
  const { rows } = await sql<{ at: Timestamp | null }>`
    select min(next_attempt_at) as at from pages where state = 'pending' and paced = 0`.execute(db);
  return rows[0]?.at ?? null;
}

// ---- End of the page reader's functions. ----

/**
 * The page of each URL (`byKey`: url_key → url) that has none yet, due at once: one page per url_key,
 * shared by the queue's items and the reading list's. `paced`: wanted only by the reading list so far
 * (articles/pacedReader.ts reads it, the queue's reader leaves it alone; migration 0033).
 */
export async function insertMissingPages(
  db: Kysely<Database>,
  byKey: ReadonlyMap<string, string>,
  now: Timestamp,
  paced: boolean,
): Promise<void> {
  await db
    .insertInto('pages')
    .values(
      [...byKey].map(([urlKey, url]) => ({
        url,
        url_key: urlKey,
        next_attempt_at: now,
        created_at: now,
        ...(paced ? { paced: 1, host: hostOf(url) } : {}),
      })),
    )
    .onConflict((oc) => oc.column('url_key').doNothing())
    .execute();
}

/** A newsletter's body as a page of its own: read already, never fetched (src/newsletters/ingest.ts). */
export interface NewsletterPage {
  /** Its url_key: `newsletter:` and more, which no http(s) URL's key can be (queue/url.ts urlKey). */
  key: string;
  /** The address that opens it (the queue item's); the page's `final_url` is the web version, if any. */
  url: string;
  webVersion: string | null;
  title: string;
  description: string | null;
  siteName: string | null;
  publishedAt: Timestamp | null;
  html: string | null;
  text: string | null;
  wordCount: number;
  readingMinutes: number;
  byteLength: number;
  at: Timestamp;
}

/** Stores a newsletter's page, `read` at once (no reader claims it); its id. */
export async function createNewsletterPage(db: Kysely<Database>, p: NewsletterPage): Promise<number> {
  const row = await db
    .insertInto('pages')
    .values({
      url: p.url,
      url_key: p.key,
      state: 'read',
      attempts: 0,
      next_attempt_at: null,
      fetched_at: p.at,
      final_url: p.webVersion,
      kind: 'newsletter',
      title: p.title,
      description: p.description,
      site_name: p.siteName,
      published_at: p.publishedAt,
      html: p.html,
      text: p.text,
      word_count: p.wordCount,
      reading_minutes: p.readingMinutes,
      media_type: 'message/rfc822',
      byte_length: p.byteLength,
      created_at: p.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Sets the address a page opens at (a newsletter's, once its id is known). */
export async function setPageUrl(db: Kysely<Database>, pageId: number, url: string): Promise<void> {
  await db.updateTable('pages').set({ url }).where('id', '=', pageId).execute();
}
