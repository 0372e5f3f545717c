import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedItem, sampleDigest, savedItem } from '../test/digestFixtures.js';
import { EXCERPT_LIMIT, digestLinks, digestView, excerptOfText, timeLabel } from './view.js';

test('groups: "Saved" first in queue order, then feeds by title, each feed newest first', () => {
  const view = digestView(sampleDigest());
  assert.deepEqual(
    view.groups.map((g) => [g.kind, g.title, g.feedId]),
    [
      ['saved', 'Saved', null],
      ['feed', 'alpha blog', 2],
      ['feed', 'Middle Feed', 9],
      ['feed', 'Zeta Weekly', 3],
    ],
  );
  assert.deepEqual(
    view.groups.map((g) => g.items.map((i) => i.title)),
    [
      ['Saved first', '" onmouseover="alert(1)'],
      ['Alpha newer', 'Alpha older'],
      ['Middle'],
      ['Zeta <script>alert("z")</script> news'],
    ],
  );
  assert.deepEqual(view.counts, { items: 6, saved: 2, fromFeeds: 4, feeds: 3, stillQueued: 5, entries: 6 });
});

test('groups: no "Saved" group without saved links; removed feeds group by their last name; undated last', () => {
  const view = digestView(
    sampleDigest({
      items: [
        feedItem({ url: 'https://a.example/1', title: 'undated', feed_id: 1, feed_title: 'Same' }),
        feedItem({ url: 'https://a.example/2', title: 'gone 1', feed_id: null, feed_title: 'Gone feed' }),
        feedItem({
          url: 'https://a.example/3',
          title: 'dated',
          feed_id: 1,
          feed_title: 'Same',
          published_at: '2026-11-21T09:00:00Z',
          queued_at: '2026-11-21T08:00:00Z',
        }),
        feedItem({ url: 'https://a.example/4', title: 'gone 2', feed_id: null, feed_title: 'Gone feed' }),
        feedItem({ url: 'https://a.example/5', title: 'nameless', feed_id: null, feed_title: null }),
        feedItem({
          url: 'https://a.example/6',
          title: 'same name, other feed',
          feed_id: 4,
          feed_title: 'Same',
        }),
      ],
    }),
  );
  assert.deepEqual(
    view.groups.map((g) => [g.title, g.feedId, g.items.map((i) => i.title)]),
    [
      ['Gone feed', null, ['gone 1', 'gone 2']],
      ['Other feeds', null, ['nameless']],
      ['Same', 1, ['undated', 'dated']], // undated: ordered by when it was queued (10:00 > 09:00)
      ['Same', 4, ['same name, other feed']],
    ],
  );
  assert.equal(view.counts.saved, 0);
});

test('items: href only for http(s), domain without www, title falls back to the URL', () => {
  const view = digestView(
    sampleDigest({
      items: [
        savedItem({ url: 'https://www.Example.COM/a', title: '  spaced \n title  ' }),
        savedItem({ url: 'javascript:alert(1)', title: 'js' }),
        savedItem({ url: 'data:text/html,<b>x</b>', title: 'data' }),
        savedItem({ url: 'https://bare.example/', title: '' }),
      ],
    }),
  );
  const items = view.groups[0]?.items ?? [];
  assert.deepEqual(
    items.map((i) => [i.title, i.href, i.domain]),
    [
      ['spaced title', 'https://www.example.com/a', 'example.com'],
      ['js', null, ''],
      ['data', null, ''],
      ['https://bare.example/', 'https://bare.example/', 'bare.example'],
    ],
  );
});

test('published times are shown in the reader zone, DST and odd offsets included', () => {
  const at = '2026-11-21T23:30:00.000Z';
  assert.equal(timeLabel(at, 'Europe/Berlin'), 'Sun 22 Nov, 00:30');
  assert.equal(timeLabel(at, 'America/New_York'), 'Sat 21 Nov, 18:30');
  assert.equal(timeLabel(at, 'Asia/Kathmandu'), 'Sun 22 Nov, 05:15');
  assert.equal(timeLabel(at, 'Australia/Lord_Howe'), 'Sun 22 Nov, 10:30'); // +11 in its summer
  assert.equal(timeLabel('2026-07-01T23:30:00.000Z', 'Australia/Lord_Howe'), 'Thu 2 Jul, 10:00'); // +10:30
  assert.equal(timeLabel('2026-07-01T12:00:00.000Z', 'Europe/Berlin'), 'Wed 1 Jul, 14:00'); // CEST

  const view = digestView(sampleDigest());
  const zeta = view.groups.find((g) => g.title === 'Zeta Weekly')?.items[0];
  assert.equal(zeta?.published, '2026-11-21T23:30:00.000Z');
  assert.equal(zeta.publishedLabel, 'Sun 22 Nov, 00:30');
  const kathmandu = digestView(sampleDigest({ account: { id: 7, name: 'k', timezone: 'Asia/Kathmandu' } }));
  assert.equal(
    kathmandu.groups.find((g) => g.title === 'Zeta Weekly')?.items[0]?.publishedLabel,
    'Sun 22 Nov, 05:15',
  );
});

test('an unknown zone renders in UTC instead of failing; unreadable dates are unknown', () => {
  const view = digestView(
    sampleDigest({
      account: { id: 1, name: 'x', timezone: 'Mars/Olympus_Mons' },
      items: [feedItem({ url: 'https://a.example/', published_at: '2026-11-21T23:30:00Z' })],
    }),
  );
  assert.equal(view.account.timezone, 'UTC');
  assert.equal(view.groups[0]?.items[0]?.publishedLabel, 'Sat 21 Nov, 23:30');
  const bad = digestView(
    sampleDigest({ items: [feedItem({ url: 'https://a.example/', published_at: 'yesterday-ish' })] }),
  );
  assert.equal(bad.groups[0]?.items[0]?.published, null);
  assert.equal(bad.groups[0].items[0].publishedLabel, null);
});

test('excerpt: the plain-text summary folded, at most 300 characters, cut on a word with "…"', () => {
  const view = digestView(sampleDigest());
  const alpha = view.groups.find((g) => g.title === 'alpha blog')?.items[0]?.excerpt ?? '';
  assert.ok(alpha.length <= EXCERPT_LIMIT, `${alpha.length}`);
  assert.ok(alpha.length > 250);
  assert.ok(alpha.startsWith('First paragraph. Second & last, with a link. Lorem ipsum'), alpha);
  assert.ok(alpha.endsWith('…'));
  assert.match(alpha, /\w…$/);
  assert.doesNotMatch(alpha, /cookie|<|>/);
  assert.ok(
    ('Lorem ipsum dolor sit amet. '.repeat(30) + 'x').includes(alpha.slice(46, -1)),
    'cut after a whole word',
  );

  assert.equal(excerptOfText(' short\n&amp; sweet '), 'short &amp; sweet');
  assert.equal(excerptOfText('x'.repeat(400)).length, EXCERPT_LIMIT);
  const emoji = excerptOfText('😀'.repeat(200));
  assert.ok(emoji.length <= EXCERPT_LIMIT);
  assert.doesNotMatch(emoji, /[\ud800-\udbff]…$/, 'no half of a surrogate pair before the ellipsis');
  // A plain summary is folded and cut the same way; HTML in it is shown, not interpreted.
  const plain = digestView(
    sampleDigest({ items: [feedItem({ url: 'https://a.example/', summary: ' a\n\n<b>b</b> ' })] }),
  );
  assert.equal(plain.groups[0]?.items[0]?.excerpt, 'a <b>b</b>');
});

test('dates, links and determinism', () => {
  const input = sampleDigest();
  const view = digestView(input);
  assert.equal(view.dateLabel, 'Sunday 22 November 2026');
  assert.equal(view.dateShort, 'Sunday 22 November');
  assert.equal(view.localDate, '2026-11-22');
  assert.deepEqual(view.links, {
    web: 'https://news.example/digests/42',
    epub: 'https://news.example/digests/42/epub',
    feeds: 'https://news.example/feeds',
    settings: 'https://news.example/settings',
    archive: 'https://news.example/digests',
    previousDigest: null,
    nextDigest: null,
  });
  assert.deepEqual(digestLinks('http://127.0.0.1:8080', 3).web, 'http://127.0.0.1:8080/digests/3');
  assert.deepEqual(digestView(input), view);
  assert.equal(
    digestView(sampleDigest({ digest: { ...input.digest, remaining: -1 } })).counts.stillQueued,
    0,
  );
});
