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
  for (let i = 0; i < items.length; i += CHUNK) {
    const rows = items.slice(i, i + CHUNK).map((item) => ({ ...item, digest_id: digestId }));
    await db.insertInto('digest_items').values(rows).execute();
  }
}

/** A digest's items in digest order. */
export async function digestItemsByDigest(db: Kysely<Database>, digestId: number): Promise<DigestItem[]> {
  return db
    .selectFrom('digest_items')
    .selectAll()
    .where('digest_id', '=', digestId)
    .orderBy('position')
    .execute();
}

/** The items of several digests in one query, by digest id and in digest order. */
export async function digestItemsByDigests(
  db: Kysely<Database>,
  digestIds: readonly number[],
): Promise<Map<number, DigestItem[]>> {
  const byDigest = new Map<number, DigestItem[]>(digestIds.map((id) => [id, []]));
  if (digestIds.length === 0) return byDigest;
  const rows = await db
    .selectFrom('digest_items')
    .selectAll()
    .where('digest_id', 'in', digestIds)
    .orderBy('digest_id')
    .orderBy('position')
    .execute();
  for (const row of rows) byDigest.get(row.digest_id)?.push(row);
  return byDigest;
}
