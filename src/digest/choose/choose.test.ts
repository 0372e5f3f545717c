import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WaitingItem } from '../../queue/take.js';
import { type ChooseInput, ENTRY_BUDGET, type Placed, TOP_STORIES, chooseDigest } from './choose.js';

/** Choosing a digest from a queue, pure: what is taken, shown, joined and only counted. */

const NOW = new Date('2026-11-23T07:00:00.000Z');
const hoursAgo = (h: number): string => new Date(NOW.getTime() - h * 3_600_000).toISOString();
let nextId = 1;
/** A headline that shares no word with any other item's: its words spell its id in letters. */
function uniqueTitle(id: number): string {
  let letters = '';
  for (let n = id; n > 0; n = Math.floor(n / 26)) letters += String.fromCharCode(97 + (n % 26));
  return `${letters}qua ${letters}bro ${letters}tel ${letters}mon`;
}

function feedItem(feedId: number, over: Partial<WaitingItem> = {}): WaitingItem {
  const id = nextId++;
  return {
    id,
    url: `https://feed${feedId}.example/post/${id}`,
    title: uniqueTitle(id),
    source: 'feed',
    feed_id: feedId,
    feed_title: `Feed ${feedId}`,
    summary: null,
    published_at: hoursAgo(3),
    created_at: hoursAgo(2),
    page_id: null,
    image_url: null,
    canonical_url: null,
    per_digest: null,
    priority: 'normal',
    muted_until: null,
    ...over,
  };
}

function savedItem(over: Partial<WaitingItem> = {}): WaitingItem {
  return feedItem(0, {
    source: 'api',
    feed_id: null,
    feed_title: null,
    published_at: null,
    per_digest: null,
    priority: null,
    ...over,
  });
}

function choose(waiting: WaitingItem[], over: Partial<ChooseInput> = {}) {
  return chooseDigest({ waiting, maxItems: 100, delivered: [], previousAt: hoursAgo(24), now: NOW, ...over });
}

const entries = (placed: Placed[]): Placed[] => placed.filter((p) => p.shown && p.storyOf === null);
const titles = (placed: Placed[]): string[] => placed.map((p) => p.item.title);

test('the reader’s own links come first, oldest first, whatever the feeds; past max-items they wait', () => {
  const feed = Array.from({ length: 400 }, (_, i) => feedItem(1 + (i % 40)));
  const saved = [savedItem({ title: 'First saved' }), savedItem({ title: 'Second saved' })];
  const choice = choose([...feed, ...saved]);
  assert.deepEqual(titles(choice.placed.slice(0, 2)), ['First saved', 'Second saved']);
  assert.ok(choice.placed.slice(0, 2).every((p) => p.section === 'saved' && p.shown));
  assert.equal(choice.carried, 0);
  assert.equal(choice.placed.length, 402, 'every feed item leaves with the digest');

  const many = Array.from({ length: 5 }, (_, i) => savedItem({ title: `Saved ${i}` }));
  const capped = choose(many, { maxItems: 3 });
  assert.deepEqual(titles(capped.placed), ['Saved 0', 'Saved 1', 'Saved 2']);
  assert.equal(capped.carried, 2, 'the newest two wait for the next digest');
});

test('each feed shows its share, given a round at a time within the budget; the rest is counted', () => {
  // One busy feed of 30 and 30 quiet feeds of 2: the busy one gets its share, not the email.
  const busy = Array.from({ length: 30 }, () => feedItem(1));
  const quiet = Array.from({ length: 40 }, (_, i) => feedItem(2 + (i % 20)));
  const choice = choose([...busy, ...quiet]);
  const shown = entries(choice.placed);
  assert.equal(choice.entries, shown.length);
  assert.ok(shown.length <= ENTRY_BUDGET, `${shown.length} entries`);
  assert.equal(shown.filter((p) => p.item.feed_id === 1).length, 3, 'the default share of a busy feed');
  const quietFeeds = new Set(shown.filter((p) => p.item.feed_id !== 1).map((p) => p.item.feed_id));
  assert.equal(quietFeeds.size, 20, 'every quiet feed has its place');
  assert.equal(choice.placed.length, 70, 'nothing is lost: the rest is in the digest, only counted');
  // A feed's entries are contiguous: shown ones first, then the counted.
  const feed1 = choice.placed.filter((p) => p.item.feed_id === 1);
  assert.deepEqual(
    feed1.map((p) => p.shown),
    [...new Array<boolean>(3).fill(true), ...new Array<boolean>(27).fill(false)],
  );
});

test('per-feed settings: all, 0, high first, low only when there is room, muted only counted', () => {
  const all = Array.from({ length: 8 }, () => feedItem(1, { per_digest: -1, feed_title: 'All of it' }));
  const none = Array.from({ length: 4 }, () => feedItem(2, { per_digest: 0, feed_title: 'Counted' }));
  const high = Array.from({ length: 2 }, () => feedItem(3, { priority: 'high', feed_title: 'Zzz high' }));
  const low = Array.from({ length: 2 }, () => feedItem(4, { priority: 'low', feed_title: 'Aaa low' }));
  const muted = Array.from({ length: 3 }, () =>
    feedItem(5, { muted_until: hoursAgo(-48), feed_title: 'Muted' }),
  );
  const choice = choose([...all, ...none, ...high, ...low, ...muted]);
  const shownOf = (feed: number) => entries(choice.placed).filter((p) => p.item.feed_id === feed).length;
  assert.equal(shownOf(1), 8);
  assert.equal(shownOf(2), 0);
  assert.equal(shownOf(3), 2);
  assert.equal(shownOf(4), 2, 'room left: low feeds are shown');
  assert.equal(shownOf(5), 0);
  const firstFeed = choice.placed.find((p) => p.section === 'feed');
  assert.equal(firstFeed?.item.feed_id, 3, 'high-priority feeds open the feed part');
  assert.equal(
    choice.placed.at(-1)?.item.feed_id === 4 || choice.placed.some((p) => p.item.feed_id === 4),
    true,
  );

  // No room: 60 normal feeds fill the budget and the low feed is only counted.
  const crowd = Array.from({ length: 60 }, (_, i) => feedItem(10 + i));
  const crowded = choose([...crowd, ...low.map((i) => ({ ...i, id: nextId++ }))]);
  assert.equal(entries(crowded.placed).filter((p) => p.item.feed_id === 4).length, 0);
  assert.equal(entries(crowded.placed).length, ENTRY_BUDGET);
});

test('one story, one entry: the same page under a ?ref=rss link, and a saved link a feed also carries', () => {
  const saved = savedItem({ url: 'https://news.example/story/42', title: 'My own title for it' });
  const carried = feedItem(1, { url: 'https://news.example/story/42?ref=rss', title: 'The feed’s headline' });
  const twice = feedItem(2, { url: 'http://www.news.example/story/42/?utm_source=rss', title: 'Another' });
  const choice = choose([carried, twice, saved]);
  assert.equal(entries(choice.placed).length, 1);
  assert.equal(choice.placed[0]?.item.title, 'My own title for it');
  assert.equal(choice.placed.at(0)?.section, 'saved');
  assert.deepEqual(
    choice.placed.slice(1).map((p) => [p.storyOf, p.shown, p.item.feed_id]),
    [
      [0, true, 1],
      [0, true, 2],
    ],
  );
});

test('two outlets’ short headlines of one announcement are one entry among a busy day’s (issue 33)', () => {
  const busy = Array.from({ length: 60 }, (_, i) => feedItem(200 + (i % 6)));
  const first = feedItem(210, { title: 'Corvane unveils new chip plan' });
  const second = feedItem(211, { title: 'Corvane’s chip plan: what we know' });
  const choice = choose([...busy, first, second]);
  const shown = entries(choice.placed).filter((p) => /Corvane/.test(p.item.title));
  assert.equal(shown.length, 1, 'one entry, not two');
  const lead = choice.placed.indexOf(shown[0] as Placed);
  const also = choice.placed.filter((p) => p.storyOf === lead);
  assert.deepEqual(
    also.map((p) => [p.item.title, p.shown]),
    [[shown[0]?.item === first ? second.title : first.title, true]],
    'the other outlet is named on its "Also in:" line',
  );
});

test('top stories: stories two or more feeds carry open the feed part, most sources first, at most five', () => {
  const headlines = [
    ['Storm Ilse floods Hamburg harbour district', 'Hamburg harbour district flooded as Storm Ilse hits'],
    ['Central bank raises interest rates half point', 'Interest rates raised half point by central bank'],
    [
      'Volcano erupts near Reykjavik airport overnight',
      'Reykjavik airport closed as volcano erupts overnight',
    ],
    [
      'Chess champion Carlsen wins Norway tournament again',
      'Carlsen wins Norway chess tournament for sixth time',
      'Norway chess tournament: Carlsen wins once more',
      'Carlsen again wins Norway chess tournament final',
    ],
    ['Teachers strike closes Paris schools Monday', 'Paris schools closed Monday by teachers strike'],
    ['Mars rover finds ancient lake sediment', 'Ancient lake sediment found by Mars rover team'],
    ['City council approves tram line extension plan', 'Tram line extension plan approved by city council'],
  ];
  const stories = headlines.flatMap((variants) => variants.map((title, f) => feedItem(100 + f, { title })));
  const other = [feedItem(100, { title: 'Unrelated local council budget vote' })];
  const choice = choose([...stories, ...other]);
  const top = choice.placed.filter((p) => p.section === 'top' && p.storyOf === null);
  assert.equal(top.length, TOP_STORIES);
  assert.match(top[0]?.item.title ?? '', /Carlsen/, 'the story four feeds carry is first');
  const firstTop = choice.placed.findIndex((p) => p.section === 'top');
  const also = choice.placed.filter((p) => p.storyOf === firstTop);
  assert.equal(also.length, 3, 'its other three sources are on its "Also in:" line');
  assert.ok(choice.placed.findIndex((p) => p.section === 'feed') > firstTop);
});

test('a story an earlier digest delivered is not shown again as new; old items are only counted', () => {
  const again = feedItem(1, {
    title: 'Parliament passes the new data protection law',
    url: 'https://a.example/law',
  });
  const fresh = feedItem(1, { title: 'Something else entirely happened today' });
  const stale = feedItem(2, {
    title: 'An old post',
    published_at: hoursAgo(24 * 9),
    created_at: hoursAgo(1),
  });
  const choice = choose([again, fresh, stale], {
    delivered: [
      {
        digestId: 77,
        url: 'https://b.example/other-url',
        title: 'New data protection law passes parliament',
        canonicalUrl: null,
        at: Date.parse(hoursAgo(20)),
      },
    ],
  });
  const byTitle = new Map(choice.placed.map((p) => [p.item.title, p]));
  assert.equal(byTitle.get(again.title)?.seenIn, 77);
  assert.equal(byTitle.get(again.title)?.shown, false);
  assert.equal(byTitle.get(fresh.title)?.shown, true);
  assert.equal(byTitle.get(stale.title)?.shown, false, 'published nine days ago: counted, not shown');
  assert.equal(choice.placed.length, 3, 'all three leave the queue with this digest');
});

test('each waiting item’s headline is read once a build, whatever its story (issue 33)', () => {
  // Stories of two feeds, items alone, a saved link, and a story an earlier digest delivered.
  const waiting = [
    feedItem(1, { title: 'Corvane unveils new chip plan' }),
    feedItem(2, { title: 'Corvane’s chip plan: what we know' }),
    feedItem(3, { title: 'Parliament passes the new data protection law' }),
    ...Array.from({ length: 20 }, (_, i) => feedItem(4 + (i % 5))),
    savedItem({ title: 'My own link' }),
  ];
  // The title is read through a getter that counts: parsing a headline reads it.
  const reads = new Map<number, number>();
  for (const item of waiting) {
    const title = item.title;
    Object.defineProperty(item, 'title', {
      get: () => {
        reads.set(item.id, (reads.get(item.id) ?? 0) + 1);
        return title;
      },
    });
  }
  const delivered = [
    {
      digestId: 7,
      url: 'https://b.example/law',
      title: 'New data protection law passes parliament',
      canonicalUrl: null,
      at: Date.parse(hoursAgo(20)),
    },
  ];
  const choice = choose(waiting, { delivered });
  const byChoice = waiting.map((i) => [i.id, reads.get(i.id) ?? 0]);
  assert.deepEqual(
    byChoice.filter(([, n]) => n !== 1),
    [],
    'every title read once by the choice: [item, reads] of the others',
  );
  assert.equal(choice.placed.length, waiting.length);
  assert.equal(choice.placed.find((p) => /Parliament/.test(p.item.title))?.seenIn, 7);
  const corvane = choice.placed.filter((p) => /Corvane/.test(p.item.title));
  assert.deepEqual(
    corvane.map((p) => p.storyOf === null),
    [true, false],
    'one story: matching had the headlines',
  );
});

test('an upgraded backlog of thousands becomes one calm digest', () => {
  const backlog = Array.from({ length: 3000 }, (_, i) =>
    feedItem(1 + (i % 60), { published_at: hoursAgo(2 + (i % 240)), created_at: hoursAgo(1 + (i % 240)) }),
  );
  const choice = choose(backlog, { previousAt: hoursAgo(24 * 11) });
  assert.equal(choice.placed.length, 3000);
  assert.ok(choice.entries <= ENTRY_BUDGET, `${choice.entries} entries`);
});
