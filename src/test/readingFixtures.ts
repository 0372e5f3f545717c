import type { Store } from '../store/db.js';
import { type NewReadingItem, insertReadingItems } from '../store/readingList.js';

/* Reading-list items for the resurfacing tests (digest/resurface.ts): written as an import writes them. */

export interface ReadingFixture {
  url: string;
  title?: string;
  savedAt: string;
  state?: 'unread' | 'archived';
  tags?: string[];
  description?: string;
  html?: string;
}

/** Adds the items to the account's reading list; their ids, in the order given. */
export async function addReadingItems(
  store: Store,
  accountId: number,
  items: readonly ReadingFixture[],
): Promise<number[]> {
  const rows: NewReadingItem[] = items.map((i) => ({
    url: i.url,
    urlKey: i.url.toLowerCase(),
    title: i.title ?? i.url,
    state: i.state ?? 'unread',
    tags: i.tags === undefined || i.tags.length === 0 ? '' : `\n${i.tags.join('\n')}\n`,
    savedAt: i.savedAt,
    source: 'pocket',
    description: i.description ?? null,
    author: null,
    publishedAt: null,
    html: i.html ?? null,
    text: i.html === undefined ? null : i.html.replace(/<[^>]*>/g, ' '),
  }));
  await insertReadingItems(store.db, accountId, rows, '2026-11-01T00:00:00.000Z');
  const found = await store.db
    .selectFrom('reading_list')
    .select(['id', 'url'])
    .where('account_id', '=', accountId)
    .execute();
  const byUrl = new Map(found.map((r) => [r.url, r.id]));
  return items.map((i) => byUrl.get(i.url) ?? 0);
}

/** The reading-list items a digest offered, in the section's order (their URLs). */
export async function offeredUrls(store: Store, digestId: number): Promise<string[]> {
  const rows = await store.db
    .selectFrom('digest_reading_items as o')
    .innerJoin('reading_list as r', 'r.id', 'o.reading_id')
    .select('r.url')
    .where('o.digest_id', '=', digestId)
    .orderBy('o.position')
    .execute();
  return rows.map((r) => r.url);
}

/** The marks of the account's items, by URL: [offered_count, offered_at, kept_at]. */
export async function offerMarks(
  store: Store,
  accountId: number,
): Promise<Map<string, [number, string | null, string | null]>> {
  const rows = await store.db
    .selectFrom('reading_list')
    .select(['url', 'offered_count', 'offered_at', 'kept_at'])
    .where('account_id', '=', accountId)
    .execute();
  return new Map(rows.map((r) => [r.url, [r.offered_count, r.offered_at, r.kept_at]]));
}
