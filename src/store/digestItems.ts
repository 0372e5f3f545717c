import type { Insertable, Kysely, Selectable } from 'kysely';
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

/** createDigestItems for the items of several digests at once (a batch of builds). */
export async function createItemsOfDigests(
  db: Kysely<Database>,
  items: readonly (NewDigestItem & { digest_id: number })[],
): Promise<void> {
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
