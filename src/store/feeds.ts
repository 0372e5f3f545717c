import { type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from './db.js';
import type { FeedFailure } from '../errors.js';
import type { Database, FeedsTable, Timestamp } from './schema.js';

export type FeedRow = Selectable<FeedsTable>;

export async function feedById(db: Kysely<Database>, feedId: number): Promise<FeedRow | null> {
  return (await db.selectFrom('feeds').selectAll().where('id', '=', feedId).executeTakeFirst()) ?? null;
}

export async function feedByUrl(db: Kysely<Database>, url: string): Promise<FeedRow | null> {
  return (await db.selectFrom('feeds').selectAll().where('url', '=', url).executeTakeFirst()) ?? null;
}

/** The feed with this URL, created (due at once) when it does not exist yet; safe against a concurrent create. */
export async function findOrCreateFeed(
  db: Kysely<Database>,
  input: { url: string; title: string; siteUrl: string | null; at: Timestamp },
): Promise<FeedRow> {
  await db
    .insertInto('feeds')
    .values({
      url: input.url,
      title: input.title,
      site_url: input.siteUrl,
      next_fetch_at: input.at,
      created_at: input.at,
    })
    .onConflict((oc) => oc.column('url').doNothing())
    .execute();
  const feed = await feedByUrl(db, input.url);
  if (feed === null) throw new Error(`feed ${input.url} vanished while being created`);
  return feed;
}

/** The feeds with these URLs that exist, in no particular order. Keep `urls` small: one parameter each. */
export async function feedsByUrls(
  db: Kysely<Database>,
  urls: readonly string[],
): Promise<Pick<FeedRow, 'id' | 'url' | 'last_success_at'>[]> {
  if (urls.length === 0) return [];
  return db.selectFrom('feeds').select(['id', 'url', 'last_success_at']).where('url', 'in', urls).execute();
}

/**
 * The feeds with these URLs, those that do not exist yet created (due at once), in one insert and one
 * select: id, URL and last success of each, in no particular order. Keep `feeds` small: four parameters each.
 */
export async function findOrCreateFeeds(
  db: Kysely<Database>,
  feeds: readonly { url: string; title: string; siteUrl: string | null }[],
  at: Timestamp,
): Promise<Pick<FeedRow, 'id' | 'url' | 'last_success_at'>[]> {
  if (feeds.length === 0) return [];
  // In URL order: two imports adding some of the same feeds at once then wait for one another on
  // PostgreSQL's unique index in the same order, never in a circle.
  const sorted = [...feeds].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  await db
    .insertInto('feeds')
    .values(
      sorted.map((f) => ({
        url: f.url,
        title: f.title,
        site_url: f.siteUrl,
        next_fetch_at: at,
        created_at: at,
      })),
    )
    .onConflict((oc) => oc.column('url').doNothing())
    .execute();
  return feedsByUrls(
    db,
    feeds.map((f) => f.url),
  );
}

/**
 * Leases up to `limit` due feeds to `owner` until `leaseUntil`. A feed is due when active, its next fetch
 * time has come and nobody holds a live lease on it. On PostgreSQL, FOR UPDATE SKIP LOCKED lets several
 * workers claim at once without waiting for or taking each other's feeds; SQLite serialises writers anyway.
 */
export async function claimDueFeeds(
  db: Kysely<Database>,
  engine: Engine,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp; limit: number },
): Promise<FeedRow[]> {
  const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<FeedRow>`
    update feeds set lease_owner = ${input.owner}, lease_until = ${input.leaseUntil}
    where id in (
      select id from feeds
      where status = 'active' and next_fetch_at <= ${input.now} and (lease_until is null or lease_until < ${input.now})
      order by next_fetch_at, id
      limit ${input.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}

/** What a fetch changes on the feed; the lease is released in the same statement. */
export interface FeedFetchUpdate {
  url?: string;
  title?: string;
  siteUrl?: string | null;
  etag?: string | null;
  lastModified?: string | null;
  status?: 'active' | 'gone';
  nextFetchAt: Timestamp;
  intervalMinutes?: number;
  fetchedAt: Timestamp;
  /** Whether the document fetched was read by the recovering parse; unchanged when not given (a 304). */
  readLeniently?: boolean;
  /** null on success (clears the error and the error count), else the error in plain words. */
  error: string | null;
  /** With an error: why, as a code, and the HTTP status for http_status (the feeds page words them). */
  failure?: { reason: FeedFailure; status: number | null };
}

/** Records a fetch outcome and releases the lease, only if `owner` still holds it; false otherwise. */
async function updateFeedAfterFetch(
  db: Kysely<Database>,
  feedId: number,
  owner: string,
  u: FeedFetchUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('feeds')
    .set((eb) => ({
      ...(u.url === undefined ? {} : { url: u.url }),
      ...(u.title === undefined ? {} : { title: u.title }),
      ...(u.siteUrl === undefined ? {} : { site_url: u.siteUrl }),
      ...(u.etag === undefined ? {} : { etag: u.etag }),
      ...(u.lastModified === undefined ? {} : { last_modified: u.lastModified }),
      ...(u.status === undefined ? {} : { status: u.status }),
      ...(u.intervalMinutes === undefined ? {} : { interval_minutes: u.intervalMinutes }),
      ...(u.readLeniently === undefined ? {} : { read_leniently: u.readLeniently ? 1 : 0 }),
      next_fetch_at: u.nextFetchAt,
      last_fetched_at: u.fetchedAt,
      ...(u.error === null
        ? { last_success_at: u.fetchedAt, last_error: null, error_count: 0 }
        : { last_error: u.error, error_count: eb('error_count', '+', 1) }),
      last_error_reason: u.failure?.reason ?? null,
      last_error_status: u.failure?.status ?? null,
      lease_owner: null,
      lease_until: null,
    }))
    .where('id', '=', feedId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Locks the feed's row until the transaction ends (on SQLite, the database's write lock, taken by the
 * transaction's first statement). Storing a fetch and filling a new subscription both start with it, so
 * they follow one another: each sees all that the other committed. With `owner`, only while that worker
 * holds the feed's lease. The feed's last success, or undefined when there is no such feed (or lease).
 */
export async function lockFeed(
  db: Kysely<Database>,
  feedId: number,
  owner?: string,
): Promise<{ lastSuccessAt: Timestamp | null } | undefined> {
  const row = await db
    .updateTable('feeds')
    .set((eb) => ({ lease_owner: eb.ref('lease_owner') }))
    .where('id', '=', feedId)
    .$if(owner !== undefined, (qb) => qb.where('lease_owner', '=', owner ?? ''))
    .returning('last_success_at')
    .executeTakeFirst();
  return row === undefined ? undefined : { lastSuccessAt: row.last_success_at };
}

/** Feeds nobody subscribes to any more are deleted with their items. */
export async function deleteOrphanFeeds(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('feeds')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('subscriptions')
            .select('subscriptions.id')
            .whereRef('subscriptions.feed_id', '=', 'feeds.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Leases one feed (whatever its schedule) unless someone holds a live lease on it; null if not taken. */
export async function claimFeed(
  db: Kysely<Database>,
  feedId: number,
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp },
): Promise<FeedRow | null> {
  return (await claimFeeds(db, [feedId], input))[0] ?? null;
}

/** claimFeed for several feeds in one statement: those taken, in id order. */
export async function claimFeeds(
  db: Kysely<Database>,
  feedIds: readonly number[],
  input: { owner: string; now: Timestamp; leaseUntil: Timestamp },
): Promise<FeedRow[]> {
  if (feedIds.length === 0) return [];
  const rows = await db
    .updateTable('feeds')
    .set({ lease_owner: input.owner, lease_until: input.leaseUntil })
    .where('id', 'in', feedIds)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', input.now)]))
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.id - b.id);
}

/** Gives a claimed feed back unfetched (a worker stopping), if `owner` still holds it: anyone may take it. */
export async function releaseFeed(db: Kysely<Database>, feedId: number, owner: string): Promise<void> {
  await db
    .updateTable('feeds')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', feedId)
    .where('lease_owner', '=', owner)
    .execute();
}

export async function activeFeedIds(db: Kysely<Database>): Promise<number[]> {
  const rows = await db
    .selectFrom('feeds')
    .select('id')
    .where('status', '=', 'active')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** When the earliest active feed is due, or null when there is none. */
export async function nextDueAt(db: Kysely<Database>): Promise<Timestamp | null> {
  const row = await db
    .selectFrom('feeds')
    .select((eb) => eb.fn.min('next_fetch_at').as('at'))
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row?.at ?? null;
}

/** Active feeds due at `now`, and of those, the ones due since before `overdueBefore`: one query. */
export async function dueFeedCounts(
  db: Kysely<Database>,
  input: { now: Timestamp; overdueBefore: Timestamp },
): Promise<{ due: number; overdue: number }> {
  const row = await db
    .selectFrom('feeds')
    .select((eb) => [
      eb.fn.countAll<number>().as('due'),
      eb.fn
        .sum<number | string>(
          eb.case().when('next_fetch_at', '<', input.overdueBefore).then(eb.lit(1)).else(eb.lit(0)).end(),
        )
        .as('overdue'),
    ])
    .where('status', '=', 'active')
    .where('next_fetch_at', '<=', input.now)
    .executeTakeFirst();
  return { due: row?.due ?? 0, overdue: Number(row?.overdue ?? 0) };
}

/** A fetch outcome to record on a feed that `owner` holds (updateFeedsAfterFetch). */
export interface FeedOutcomeRow {
  feedId: number;
  owner: string;
  update: FeedFetchUpdate;
}

/**
 * updateFeedAfterFetch for several feeds at once: on PostgreSQL one statement (an UPDATE … FROM unnest
 * of the outcomes), on SQLite one statement each (run inside the caller's transaction, they cost little).
 * Each row is written only if its owner still holds the feed's lease; returns the ids of those written.
 */
export async function updateFeedsAfterFetch(
  db: Kysely<Database>,
  engine: Engine,
  rows: readonly FeedOutcomeRow[],
): Promise<Set<number>> {
  const written = new Set<number>();
  if (engine === 'sqlite' || rows.length === 1) {
    for (const r of rows)
      if (await updateFeedAfterFetch(db, r.feedId, r.owner, r.update)) written.add(r.feedId);
    return written;
  }
  if (rows.length === 0) return written;
  // Every optional column comes with a flag: whether this outcome sets it (else the feed keeps its own).
  const col = <T>(pick: (u: FeedFetchUpdate) => T | undefined): { set: boolean[]; value: (T | null)[] } => ({
    set: rows.map((r) => pick(r.update) !== undefined),
    value: rows.map((r) => pick(r.update) ?? null),
  });
  const url = col((u) => u.url);
  const title = col((u) => u.title);
  const siteUrl = col((u) => u.siteUrl);
  const etag = col((u) => u.etag);
  const lastModified = col((u) => u.lastModified);
  const status = col((u) => u.status);
  const interval = col((u) => u.intervalMinutes);
  const lenient = col((u) => (u.readLeniently === undefined ? undefined : u.readLeniently ? 1 : 0));
  const { rows: done } = await sql<{ id: number }>`
    update feeds f set
      url = case when u.url_set then u.url else f.url end,
      title = case when u.title_set then u.title else f.title end,
      site_url = case when u.site_url_set then u.site_url else f.site_url end,
      etag = case when u.etag_set then u.etag else f.etag end,
      last_modified = case when u.last_modified_set then u.last_modified else f.last_modified end,
      status = case when u.status_set then u.status else f.status end,
      interval_minutes = case when u.interval_set then u.interval_minutes else f.interval_minutes end,
      read_leniently = case when u.lenient_set then u.read_leniently else f.read_leniently end,
      next_fetch_at = u.next_fetch_at,
      last_fetched_at = u.fetched_at,
      last_success_at = case when u.error is null then u.fetched_at else f.last_success_at end,
      last_error = u.error,
      last_error_reason = u.error_reason,
      last_error_status = u.error_status,
      error_count = case when u.error is null then 0 else f.error_count + 1 end,
      lease_owner = null,
      lease_until = null
    from unnest(
      ${rows.map((r) => r.feedId)}::int[], ${rows.map((r) => r.owner)}::text[],
      ${url.set}::boolean[], ${url.value}::text[], ${title.set}::boolean[], ${title.value}::text[],
      ${siteUrl.set}::boolean[], ${siteUrl.value}::text[], ${etag.set}::boolean[], ${etag.value}::text[],
      ${lastModified.set}::boolean[], ${lastModified.value}::text[],
      ${status.set}::boolean[], ${status.value}::text[], ${interval.set}::boolean[], ${interval.value}::int[],
      ${lenient.set}::boolean[], ${lenient.value}::int[],
      ${rows.map((r) => r.update.nextFetchAt)}::text[], ${rows.map((r) => r.update.fetchedAt)}::text[],
      ${rows.map((r) => r.update.error)}::text[],
      ${rows.map((r) => r.update.failure?.reason ?? null)}::text[],
      ${rows.map((r) => r.update.failure?.status ?? null)}::int[]
    ) as u(id, owner, url_set, url, title_set, title, site_url_set, site_url, etag_set, etag,
      last_modified_set, last_modified, status_set, status, interval_set, interval_minutes,
      lenient_set, read_leniently, next_fetch_at, fetched_at, error, error_reason, error_status)
    where f.id = u.id and f.lease_owner = u.owner
    returning f.id`.execute(db);
  for (const r of done) written.add(r.id);
  return written;
}

/**
 * lockFeed for several feeds that `owner` holds, in id order (on PostgreSQL one statement taking the same
 * row lock as lockFeed's UPDATE; on SQLite the transaction's write lock is what counts). The last success of each feed locked, by id;
 * a feed whose lease `owner` no longer holds is missing.
 */
export async function lockFeeds(
  db: Kysely<Database>,
  engine: Engine,
  feedIds: readonly number[],
  owner: string,
): Promise<Map<number, { lastSuccessAt: Timestamp | null }>> {
  const locked = new Map<number, { lastSuccessAt: Timestamp | null }>();
  const ids = [...feedIds].sort((a, b) => a - b);
  if (engine === 'sqlite' || ids.length === 1) {
    for (const id of ids) {
      const row = await lockFeed(db, id, owner);
      if (row !== undefined) locked.set(id, row);
    }
    return locked;
  }
  if (ids.length === 0) return locked;
  const { rows } = await sql<{ id: number; last_success_at: Timestamp | null }>`
    select id, last_success_at from feeds
    where id = any(${ids}::int[]) and lease_owner = ${owner}
    order by id for no key update`.execute(db);
  for (const r of rows) locked.set(r.id, { lastSuccessAt: r.last_success_at });
  return locked;
}

/**
 * The feed of a newsletter's sender (`mailto:` and its address), status 'newsletter': never claimed by
 * the poller nor refreshed (every claim above takes 'active' feeds only). Made on the sender's first
 * message; its title follows the latest From display name. Its id.
 */
export async function newsletterFeed(
  db: Kysely<Database>,
  input: { url: string; title: string; at: Timestamp },
): Promise<number> {
  const row = await db
    .insertInto('feeds')
    .values({
      url: input.url,
      title: input.title,
      site_url: null,
      status: 'newsletter',
      next_fetch_at: input.at,
      created_at: input.at,
    })
    .onConflict((oc) => oc.column('url').doUpdateSet({ title: input.title }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
