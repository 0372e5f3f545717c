import type { DigestItemRow, DigestViewInput } from '../digest/view.js';

/** A feed item row with the fields a test does not care about filled in. */
export function feedItem(over: Partial<DigestItemRow> & { url: string }): DigestItemRow {
  return {
    title: 'An item',
    source: 'feed',
    feed_id: 1,
    feed_title: 'A feed',
    published_at: null,
    queued_at: '2026-11-21T10:00:00.000Z',
    summary: null,
    ...over,
  };
}

/** A saved-URL row (from the API). */
export function savedItem(over: Partial<DigestItemRow> & { url: string }): DigestItemRow {
  return feedItem({ source: 'api', feed_id: null, feed_title: null, ...over });
}

/**
 * A digest with hostile and ordinary content: two saved links (one a javascript: URL), three feeds given
 * out of alphabetical order, script tags, quotes and entities in titles and summaries.
 */
export function sampleDigest(over: Partial<DigestViewInput> = {}): DigestViewInput {
  return {
    account: { id: 7, name: 'Ada <Lovelace> & "friends"', timezone: 'Europe/Berlin' },
    digest: { id: 42, local_date: '2026-11-22', created_at: '2026-11-22T06:00:03.000Z', remaining: 5 },
    baseUrl: 'https://news.example/',
    token: null,
    items: [
      savedItem({
        url: 'https://www.example.com/saved-first',
        title: 'Saved first',
        queued_at: '2026-11-21T08:00:00.000Z',
      }),
      feedItem({
        url: 'https://zeta.example/post?a=1&b="2"',
        title: 'Zeta <script>alert("z")</script> news',
        feed_id: 3,
        feed_title: 'Zeta Weekly',
        published_at: '2026-11-21T23:30:00.000Z',
        summary: 'Zeta summary & more',
      }),
      savedItem({
        url: 'javascript:alert(1)',
        title: '" onmouseover="alert(1)',
        queued_at: '2026-11-21T09:00:00.000Z',
      }),
      feedItem({
        url: 'https://alpha.example/older',
        title: 'Alpha older',
        feed_id: 2,
        feed_title: 'alpha blog',
        published_at: '2026-11-20T12:00:00.000Z',
      }),
      feedItem({
        url: 'https://alpha.example/newer',
        title: 'Alpha newer',
        feed_id: 2,
        feed_title: 'alpha blog',
        published_at: '2026-11-21T12:00:00.000Z',
        summary:
          'First paragraph.\n\nSecond & last, with a link. ' + 'Lorem ipsum dolor sit amet. '.repeat(30),
      }),
      feedItem({ url: 'https://mid.example/x', title: 'Middle', feed_id: 9, feed_title: 'Middle Feed' }),
    ],
    ...over,
  };
}
