import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { recordOffers, resurfaceCandidates } from '../store/readingListOffers.js';
import type { Database } from '../store/schema.js';
import type { ResurfaceOrder } from '../store/schemaReadingList.js';

/*
 * "From your reading list" (issue 27, point 3): each digest built offers up to the account's
 * resurface_count unread reading-list items (0: none), on top of what choose.ts took from the queue: the
 * section has its own budget, so the reader's own links and the feeds' shares are chosen exactly as
 * without it. It runs in the build's transaction, after the digests are written (store/readingListOffers.ts
 * for the order): a build rolled back offered nothing and marked nothing, and a digest that already exists
 * is never built again, so an item is marked once per digest. 'random' is shuffled by a seed of the
 * account and the digest's day, so a build retried after a rollback picks the same items.
 */

/** The most items a digest offers (`account set --resurface`, the Settings page). */
export const RESURFACE_MAX = 10;

export interface ResurfaceTarget {
  accountId: number;
  digestId: number;
  localDate: string;
  count: number;
  order: ResurfaceOrder;
}

/** Chooses and records the section of each digest just written; the items offered, by digest id. */
export async function resurfaceInto(
  trx: Kysely<Database>,
  targets: readonly ResurfaceTarget[],
  at: string,
): Promise<Map<number, number[]>> {
  const offers: { accountId: number; digestId: number; readingIds: number[] }[] = [];
  for (const t of targets) {
    const count = Math.min(RESURFACE_MAX, Math.max(0, t.count));
    if (count === 0) continue;
    const seed = seedOf(t.accountId, t.localDate);
    const readingIds = await resurfaceCandidates(trx, t.accountId, { count, order: t.order, seed });
    if (readingIds.length > 0) offers.push({ accountId: t.accountId, digestId: t.digestId, readingIds });
  }
  await recordOffers(trx, offers, at);
  return new Map(offers.map((o) => [o.digestId, o.readingIds]));
}

/** 31 bits of SHA-256 of the account and day: the shuffle's seed for 'random'. */
function seedOf(accountId: number, localDate: string): number {
  return createHash('sha256').update(`resurface ${accountId} ${localDate}`).digest().readUInt32BE(0) >>> 1;
}
