import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from './db.js';
import type { Database, DigestItemsTable, DigestSection } from './schema.js';

export type DigestItem = Selectable<DigestItemsTable>;
export type NewDigestItem = Omit<Insertable<DigestItemsTable>, 'id' | 'digest_id'>;

/** Rows per INSERT: 12 values each stays far below either engine's limit on parameters. */
const CHUNK = 500;

export async function createDigestItems(
  db: Kysely<Database>,
  digestId: number,
  items: readonly NewDigestItem[],
): Promise<void> {
  await createItemsOfDigests(
    db,
    items.map((item) => ({ ...item, digest_id: digestId })),
  );
}

/**
 * createDigestItems for the items of several digests at once (a batch of builds): on PostgreSQL one
 * statement for them all (one array per column), in the order given; on SQLite in chunks of CHUNK rows.
 */
export async function createItemsOfDigests(
  db: Kysely<Database>,
  items: readonly (NewDigestItem & { digest_id: number })[],
  engine: Engine = 'sqlite',
): Promise<void> {
  if (items.length === 0) return;
  if (engine === 'postgres') {
    const column = <T>(pick: (i: NewDigestItem & { digest_id: number }) => T): T[] => items.map(pick);
    await sql`
      insert into digest_items
        (digest_id, position, url, title, source, feed_id, feed_title, summary, published_at, queued_at,
         page_id, image_url, section, shown, story_of, seen_in)
      select r.digest_id, r.position, r.url, r.title, r.source, r.feed_id, r.feed_title, r.summary,
        r.published_at, r.queued_at, r.page_id, r.image_url, r.section, r.shown, r.story_of, r.seen_in
      from unnest(
        ${column((i) => i.digest_id)}::int[], ${column((i) => i.position)}::int[],
        ${column((i) => i.url)}::text[], ${column((i) => i.title)}::text[], ${column((i) => i.source)}::text[],
        ${column((i) => i.feed_id ?? null)}::int[], ${column((i) => i.feed_title ?? null)}::text[],
        ${column((i) => i.summary ?? null)}::text[], ${column((i) => i.published_at ?? null)}::text[],
        ${column((i) => i.queued_at)}::text[], ${column((i) => i.page_id ?? null)}::int[],
        ${column((i) => i.image_url ?? null)}::text[], ${column((i) => i.section ?? null)}::text[],
        ${column((i) => i.shown ?? 1)}::int[], ${column((i) => i.story_of ?? null)}::int[],
        ${column((i) => i.seen_in ?? null)}::int[]
      ) with ordinality as r(digest_id, position, url, title, source, feed_id, feed_title, summary,
        published_at, queued_at, page_id, image_url, section, shown, story_of, seen_in, n)
      order by r.n`.execute(db);
    return;
  }
  for (let i = 0; i < items.length; i += CHUNK) {
    await db
      .insertInto('digest_items')
      .values(items.slice(i, i + CHUNK))
      .execute();
  }
}

/**
 * Items `from` to `from + count - 1` (positions) of one of the account's digests, in digest order. A build
 * writes positions 0 to item_count - 1, so a page is a range of the (digest_id, position) index: only its
 * rows are read, however large the digest.
 */
export async function digestItemsRange(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  range: { from: number; count: number },
): Promise<DigestItem[]> {
  return db
    .selectFrom('digest_items')
    .innerJoin('digests', 'digests.id', 'digest_items.digest_id')
    .selectAll('digest_items')
    .where('digests.account_id', '=', accountId)
    .where('digest_items.digest_id', '=', digestId)
    .where('digest_items.position', '>=', range.from)
    .where('digest_items.position', '<', range.from + range.count)
    .orderBy('digest_items.position')
    .execute();
}

/**
 * What the emails of several digests show (migration 0025): their shown items in digest order, and for
 * each feed the entries only counted ("+N more from"), by digest id. Items of digests built before 0025
 * are all shown; such a digest's email takes its first `count` items, as it always did. Of a digest built
 * since, at most its first `rows` shown items are read (its entries past them are counted by the caller,
 * from `digests.shown_count`): a digest of 10,000 saved links reads what its email can hold, not all.
 */
export async function shownItemsOfDigests(
  db: Kysely<Database>,
  accountIds: readonly number[],
  digestIds: readonly number[],
  count: number,
  rows = Number.MAX_SAFE_INTEGER,
): Promise<Map<number, { items: DigestItem[]; collapsed: CollapsedFeed[] }>> {
  const byDigest = new Map<number, { items: DigestItem[]; collapsed: CollapsedFeed[] }>(
    digestIds.map((id) => [id, { items: [], collapsed: [] }]),
  );
  if (digestIds.length === 0 || accountIds.length === 0) return byDigest;
  // Numbered per digest in digest order, only the first `rows` of each kept (both engines have row_number).
  const ranked = db
    .selectFrom('digest_items')
    .innerJoin('digests', 'digests.id', 'digest_items.digest_id')
    .select((eb) => [
      'digest_items.id',
      eb.fn
        .agg<number | string>('row_number', [])
        .over((ob) => ob.partitionBy('digest_items.digest_id').orderBy('digest_items.position'))
        .as('rank'),
    ])
    .where('digests.account_id', 'in', accountIds)
    .where('digest_items.digest_id', 'in', digestIds)
    .where('digest_items.shown', '=', 1)
    .where((eb) =>
      eb.or([eb('digests.shown_count', 'is not', null), eb('digest_items.position', '<', count)]),
    );
  const read = await db
    .selectFrom('digest_items')
    .selectAll()
    .where('id', 'in', db.selectFrom(ranked.as('r')).select('r.id').where('r.rank', '<=', rows))
    .orderBy('digest_id')
    .orderBy('position')
    .execute();
  for (const row of read) byDigest.get(row.digest_id)?.items.push(row);
  const counted = await db
    .selectFrom('digest_items')
    .innerJoin('digests', 'digests.id', 'digest_items.digest_id')
    .select((eb) => [
      'digest_items.digest_id',
      'digest_items.feed_id',
      'digest_items.feed_title',
      'digest_items.section',
      eb.fn.countAll<number | string>().as('entries'),
      eb.fn.min('digest_items.position').as('first'),
    ])
    .where('digests.account_id', 'in', accountIds)
    .where('digest_items.digest_id', 'in', digestIds)
    .where('digest_items.shown', '=', 0)
    .where('digest_items.story_of', 'is', null)
    .groupBy([
      'digest_items.digest_id',
      'digest_items.feed_id',
      'digest_items.feed_title',
      'digest_items.section',
    ])
    .orderBy('digest_items.digest_id')
    .orderBy('first')
    .execute();
  for (const row of counted) {
    byDigest.get(row.digest_id)?.collapsed.push({
      feedId: row.feed_id,
      feedTitle: row.feed_title,
      section: row.section,
      entries: Number(row.entries),
      firstPosition: row.first,
    });
  }
  return byDigest;
}

/** A feed's entries that a digest's email only counts. */
export interface CollapsedFeed {
  feedId: number | null;
  feedTitle: string | null;
  /** 'newsletters' for a newsletter sender's entries, else a feed's ('feed', or null before 0025). */
  section: DigestSection | null;
  entries: number;
  /** The position of the first of them (where the web page lists them). */
  firstPosition: number;
}

/** An item an earlier digest's email showed, for "not shown again as new". */
export interface ShownBefore {
  digest_id: number;
  url: string;
  title: string;
  canonical_url: string | null;
  published_at: string | null;
  queued_at: string;
}

/**
 * Of several accounts, the items the emails of their last `digests` digests showed, and when their latest
 * digest was built (by account id); two statements.
 */
export async function recentShownOfAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
  digests: number,
): Promise<Map<number, { previousAt: string | null; shown: ShownBefore[] }>> {
  const byAccount = new Map<number, { previousAt: string | null; shown: ShownBefore[] }>(
    accountIds.map((id) => [id, { previousAt: null, shown: [] }]),
  );
  if (accountIds.length === 0) return byAccount;
  const recent = await db
    .selectFrom('digests as d')
    .select((eb) => [
      'd.id',
      'd.account_id',
      'd.created_at',
      eb.fn
        .agg<number | string>('row_number', [])
        .over((ob) => ob.partitionBy('d.account_id').orderBy('d.id', 'desc'))
        .as('rank'),
    ])
    .where('d.account_id', 'in', accountIds)
    .execute();
  const kept = recent.filter((r) => Number(r.rank) <= digests);
  for (const r of kept) {
    const entry = byAccount.get(r.account_id);
    if (entry !== undefined && Number(r.rank) === 1) entry.previousAt = r.created_at;
  }
  if (kept.length === 0) return byAccount;
  const accountOf = new Map(kept.map((r) => [r.id, r.account_id]));
  const rows = await db
    .selectFrom('digest_items as i')
    .leftJoin('pages as p', 'p.id', 'i.page_id')
    .select(['i.digest_id', 'i.url', 'i.title', 'p.canonical_url', 'i.published_at', 'i.queued_at'])
    .where('i.digest_id', 'in', [...accountOf.keys()])
    .where('i.shown', '=', 1)
    .execute();
  for (const row of rows) {
    const accountId = accountOf.get(row.digest_id);
    if (accountId !== undefined) byAccount.get(accountId)?.shown.push(row);
  }
  return byAccount;
}
