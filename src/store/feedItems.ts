import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';

export interface NewFeedItem {
  itemKey: string;
  url: string | null;
  title: string;
  summary: string;
  publishedAt: Timestamp | null;
  firstSeenAt: Timestamp;
  /** The item's own picture, absolute http(s); null when it names none. */
  imageUrl: string | null;
}

/** Rows per INSERT: 8 values each stays far below either engine's limit on parameters. */
const CHUNK = 500;

/**
 * Remembers the items of one or several feeds (distinct feeds), in one statement per 500 items; returns
 * the keys of those seen for the first time, by feed. The unique (feed, key) pair makes this exact even
 * when two workers race; of a feed's items sharing a key, the first is the one written.
 */
export async function createFeedsItemsIfNew(
  db: Kysely<Database>,
  feeds: readonly { feedId: number; items: readonly NewFeedItem[] }[],
): Promise<Map<number, Set<string>>> {
  const created = new Map<number, Set<string>>(feeds.map((f) => [f.feedId, new Set<string>()]));
  const rows = feeds.flatMap(({ feedId, items }) =>
    items.map((item) => ({
      feed_id: feedId,
      item_key: item.itemKey,
      url: item.url,
      title: item.title,
      summary: item.summary,
      published_at: item.publishedAt,
      first_seen_at: item.firstSeenAt,
      image_url: item.imageUrl,
    })),
  );
  for (let i = 0; i < rows.length; i += CHUNK) {
    const done = await db
      .insertInto('feed_items')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['feed_id', 'item_key']).doNothing())
      .returning(['feed_id', 'item_key'])
      .execute();
    for (const r of done) created.get(r.feed_id)?.add(r.item_key);
  }
  return created;
}

/**
 * Items of a feed published since `since`, or, without a date, first seen since then: what a new
 * subscriber gets. Undated items the feed's first fetch found (the earliest first_seen_at) are left out,
 * as that fetch itself queued none of them: nothing says they are recent, and a feed without dates would
 * otherwise flood every later subscriber's queue with its whole archive.
 */
export async function recentFeedItems(
  db: Kysely<Database>,
  feedId: number,
  since: Timestamp,
): Promise<
  {
    url: string | null;
    title: string;
    summary: string;
    published_at: Timestamp | null;
    image_url: string | null;
  }[]
> {
  return db
    .selectFrom('feed_items')
    .select(['url', 'title', 'summary', 'published_at', 'image_url'])
    .where('feed_id', '=', feedId)
    .where((eb) =>
      eb.or([
        eb('published_at', '>=', since),
        eb.and([
          eb('published_at', 'is', null),
          eb('first_seen_at', '>=', since),
          eb(
            'first_seen_at',
            '>',
            eb
              .selectFrom('feed_items as first')
              .select((e) => e.fn.min('first.first_seen_at').as('at'))
              .where('first.feed_id', '=', feedId),
          ),
        ]),
      ]),
    )
    .orderBy('id')
    .execute();
}

/** When the feed's newest dated item was published (ISO), or null when it has none. */
export async function newestFeedItemAt(db: Kysely<Database>, feedId: number): Promise<Timestamp | null> {
  const row = await db
    .selectFrom('feed_items')
    .select((eb) => eb.fn.max('published_at').as('newest'))
    .where('feed_id', '=', feedId)
    .executeTakeFirst();
  return row?.newest ?? null;
}
