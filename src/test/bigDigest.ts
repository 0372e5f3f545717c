import { createDigest } from '../store/digests.js';
import type { Store } from '../store/db.js';
import { createDigestItems } from '../store/digestItems.js';
import { type FeedRow, findOrCreateFeed } from '../store/feeds.js';

/** Feeds the items of a large digest come from (every tenth item is a saved link). */
const FEEDS = ['Alpha News', 'Beta Weekly', 'Gamma Log', 'Delta Notes', 'Epsilon Daily'];

/** The title of item `i` (0-based position) of a digest made by `insertLargeDigest`: unique, searchable. */
export const largeItemTitle = (i: number): string => `Big item #${i}#`;

/**
 * Writes a digest of `count` items straight into the store (a build through the queue would take minutes
 * at 10,000): every tenth item saved, the others from five real feed rows, each with a summary of about
 * 200 characters and a publication time. `emailDue` leaves its email due now. Returns the digest's id.
 */
export async function insertLargeDigest(
  store: Store,
  accountId: number,
  count: number,
  options: { localDate?: string; emailDue?: boolean } = {},
): Promise<number> {
  const at = '2026-11-22T06:00:00.000Z';
  const localDate = options.localDate ?? '2026-11-22';
  const emailDue = options.emailDue ?? false;
  const feeds: FeedRow[] = [];
  for (const title of FEEDS) {
    const url = `https://feeds.example/${title.toLowerCase().replace(' ', '-')}.xml`;
    feeds.push(await findOrCreateFeed(store.db, { url, title, siteUrl: null, at }));
  }
  const digest = await createDigest(store.db, accountId, {
    localDate,
    createdAt: at,
    itemCount: count,
    savedCount: Math.ceil(count / 10),
    feedCount: Math.min(count - Math.ceil(count / 10), FEEDS.length),
    remaining: 0,
    delivery: emailDue ? 'pending' : 'not_emailed',
    nextAttemptAt: emailDue ? at : null,
    messageId: `<big.${accountId}.${localDate}@tidings.example>`,
  });
  if (digest === null) throw new Error(`account ${accountId} already has a digest on ${localDate}`);
  const items = Array.from({ length: count }, (_, position) => {
    const feed = position % 10 === 0 ? null : (feeds[position % FEEDS.length] ?? null);
    const minute = new Date(Date.parse('2026-11-21T00:00:00.000Z') + position * 60_000).toISOString();
    return {
      position,
      url: `https://example.org/big/${position}?utm_source=feed`,
      title: largeItemTitle(position),
      source: feed === null ? ('api' as const) : ('feed' as const),
      feed_id: feed?.id ?? null,
      feed_title: feed?.title ?? null,
      summary: `Summary of item ${position}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing. '.repeat(4)}`,
      published_at: feed === null ? null : minute,
      queued_at: minute,
    };
  });
  await createDigestItems(store.db, digest.id, items);
  return digest.id;
}
