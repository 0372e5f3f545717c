import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from './db.js';
import type { Database, DigestItemsTable } from './schema.js';

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
         page_id, image_url)
      select r.digest_id, r.position, r.url, r.title, r.source, r.feed_id, r.feed_title, r.summary,
        r.published_at, r.queued_at, r.page_id, r.image_url
      from unnest(
        ${column((i) => i.digest_id)}::int[], ${column((i) => i.position)}::int[],
        ${column((i) => i.url)}::text[], ${column((i) => i.title)}::text[], ${column((i) => i.source)}::text[],
        ${column((i) => i.feed_id ?? null)}::int[], ${column((i) => i.feed_title ?? null)}::text[],
        ${column((i) => i.summary ?? null)}::text[], ${column((i) => i.published_at ?? null)}::text[],
        ${column((i) => i.queued_at)}::text[], ${column((i) => i.page_id ?? null)}::int[],
        ${column((i) => i.image_url ?? null)}::text[]
      ) with ordinality as r(digest_id, position, url, title, source, feed_id, feed_title, summary,
        published_at, queued_at, page_id, image_url, n)
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

/** The first `count` items of each of several of the account's digests, by digest id, in digest order. */
export async function firstDigestItems(
  db: Kysely<Database>,
  accountId: number,
  digestIds: readonly number[],
  count: number,
): Promise<Map<number, DigestItem[]>> {
  return firstItemsOfDigests(db, [accountId], digestIds, count);
}

/** firstDigestItems for the digests of several accounts (a batch of emails). */
export async function firstItemsOfDigests(
  db: Kysely<Database>,
  accountIds: readonly number[],
  digestIds: readonly number[],
  count: number,
): Promise<Map<number, DigestItem[]>> {
  const byDigest = new Map<number, DigestItem[]>(digestIds.map((id) => [id, []]));
  if (digestIds.length === 0 || accountIds.length === 0) return byDigest;
  const rows = await db
    .selectFrom('digest_items')
    .innerJoin('digests', 'digests.id', 'digest_items.digest_id')
    .selectAll('digest_items')
    .where('digests.account_id', 'in', accountIds)
    .where('digest_items.digest_id', 'in', digestIds)
    .where('digest_items.position', '<', count)
    .orderBy('digest_items.digest_id')
    .orderBy('digest_items.position')
    .execute();
  for (const row of rows) byDigest.get(row.digest_id)?.push(row);
  return byDigest;
}
