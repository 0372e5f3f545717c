import { type Kysely, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { ReadingState, ResurfaceOrder } from './schemaReadingList.js';

/*
 * Resurfacing (issue 27, point 3; migration 0034): which of an account's unread reading-list items a digest
 * offers, the record of what each digest offered (digest_reading_items), and the marks its actions set.
 * The choice, in tiers: items the reader kept for tomorrow (`kept_at`, earliest kept first); then items
 * never offered; then the least recently offered. Within a tier, oldest saved first, or for 'random' a
 * shuffle seeded by the caller (the same seed, the same order: a retried build picks the same items).
 */

/** Unread items of the account a digest would offer now, at most `count`, in the section's order (ids). */
export async function resurfaceCandidates(
  db: Kysely<Database>,
  accountId: number,
  choice: { count: number; order: ResurfaceOrder; seed: number },
): Promise<number[]> {
  if (choice.count <= 0) return [];
  const unread = () =>
    db.selectFrom('reading_list as r').where('r.account_id', '=', accountId).where('r.state', '=', 'unread');
  // Two rounds of a multiplicative hash modulo a prime above 2^32: spreads ids (consecutive after an
  // import) over the range; integers stay below 2^63 on both engines for ids below 2^31.
  const shuffled = sql<number>`((r.id * 2654435761 + cast(${choice.seed} as bigint)) % 4294967311) * 1597334677 % 4294967311`;
  const tiered = (tier: ReturnType<typeof unread>) =>
    (choice.order === 'random' ? tier.orderBy(shuffled) : tier.orderBy('r.saved_at')).orderBy('r.id');
  const picked: number[] = [];
  const kept = await unread()
    .select('r.id')
    .where('r.kept_at', 'is not', null)
    .orderBy('r.kept_at')
    .orderBy('r.id')
    .limit(choice.count)
    .execute();
  picked.push(...kept.map((r) => r.id));
  if (picked.length < choice.count) {
    const fresh = await tiered(unread().where('r.offered_at', 'is', null).where('r.kept_at', 'is', null))
      .select('r.id')
      .limit(choice.count - picked.length)
      .execute();
    picked.push(...fresh.map((r) => r.id));
  }
  if (picked.length < choice.count) {
    const again = await tiered(
      unread().where('r.offered_at', 'is not', null).where('r.kept_at', 'is', null).orderBy('r.offered_at'),
    )
      .select('r.id')
      .limit(choice.count - picked.length)
      .execute();
    picked.push(...again.map((r) => r.id));
  }
  return picked;
}

/**
 * Records what digests offered (in the build's transaction): their rows in digest_reading_items, and on
 * each item when it was offered and how many times; a kept item's mark is cleared (it has had its day).
 */
export async function recordOffers(
  db: Kysely<Database>,
  offers: readonly { accountId: number; digestId: number; readingIds: readonly number[] }[],
  at: Timestamp,
): Promise<void> {
  const rows = offers.flatMap((o) =>
    o.readingIds.map((readingId, position) => ({ digest_id: o.digestId, position, reading_id: readingId })),
  );
  if (rows.length === 0) return;
  await db.insertInto('digest_reading_items').values(rows).execute();
  for (const o of offers) {
    if (o.readingIds.length === 0) continue;
    await db
      .updateTable('reading_list')
      .set((eb) => ({ offered_at: at, offered_count: eb('offered_count', '+', 1), kept_at: null }))
      .where('account_id', '=', o.accountId)
      .where('id', 'in', o.readingIds)
      .execute();
  }
}

/** A reading-list item as a digest's section shows it. */
export interface OfferedItem {
  digest_id: number;
  position: number;
  id: number;
  url: string;
  title: string;
  state: ReadingState;
  tags: string;
  saved_at: Timestamp;
  description: string | null;
  author: string | null;
  /** The page read for it (a key for pageCardsByIds), or null. */
  page_id: number | null;
  /** 1 when it brought its own readable text (Omnivore, Wallabag). */
  has_html: number;
  kept_at: Timestamp | null;
}

/** What several of these accounts' digests offered, by digest id, in each section's order. */
export async function offeredOfDigests(
  db: Kysely<Database>,
  accountIds: readonly number[],
  digestIds: readonly number[],
): Promise<Map<number, OfferedItem[]>> {
  const byDigest = new Map<number, OfferedItem[]>(digestIds.map((id) => [id, []]));
  if (digestIds.length === 0 || accountIds.length === 0) return byDigest;
  const rows = await db
    .selectFrom('digest_reading_items as o')
    .innerJoin('reading_list as r', 'r.id', 'o.reading_id')
    .select(['o.digest_id', 'o.position', 'r.id', 'r.url', 'r.title', 'r.state', 'r.tags', 'r.saved_at'])
    .select(['r.description', 'r.author', 'r.page_id', 'r.kept_at'])
    .select(sql<number>`case when r.html is not null then 1 else 0 end`.as('has_html'))
    .where('r.account_id', 'in', accountIds)
    .where('o.digest_id', 'in', digestIds)
    .orderBy('o.digest_id')
    .orderBy('o.position')
    .execute();
  for (const row of rows) byDigest.get(row.digest_id)?.push(row);
  return byDigest;
}

/** The readable HTML items brought themselves, by id (the EPUB's chapters); the account's items only. */
export async function offeredHtmlByIds(
  db: Kysely<Database>,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, { html: string; author: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('reading_list')
    .select(['id', 'html', 'author'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('html', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, { html: r.html ?? '', author: r.author }]));
}

/** Item `readingId` as the account's digest `digestId` offered it; null when that digest did not. */
export async function offeredItemOfAction(
  db: Kysely<Database>,
  accountId: number,
  digestId: number,
  readingId: number,
): Promise<OfferedItem | null> {
  const found = (await offeredOfDigests(db, [accountId], [digestId])).get(digestId) ?? [];
  return found.find((i) => i.id === readingId) ?? null;
}

/**
 * Marks an item kept for tomorrow (`at`) or takes the mark off (null; only if it is still `onlyIf`, the
 * mark this undo set: a digest since may have offered and cleared it). False when nothing changed.
 */
export async function setKeptForTomorrow(
  db: Kysely<Database>,
  accountId: number,
  readingId: number,
  at: Timestamp | null,
  onlyIf?: Timestamp,
): Promise<boolean> {
  const result = await db
    .updateTable('reading_list')
    .set({ kept_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', readingId)
    .$if(onlyIf !== undefined, (qb) => qb.where('kept_at', '=', onlyIf ?? ''))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
