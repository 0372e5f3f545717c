import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  RecordingMailer,
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { buildDigestNow } from './build.js';
import { deliverDueDigests } from './deliver.js';

/**
 * Issue 33, point 1, as the reader sees it: 17 links saved, one of which a feed had queued first. The
 * digest says 17 saved, shows that link once, in Saved, with the feed on its "Also in:" line, and no
 * longer counts it among the feed's items (docs/digest.md, "One story, one entry").
 */
await describeEachEngine('a saved link a feed queued first, in the digest', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = testServer(ctx.store());
    await app.ready();
  });
  after(async () => {
    await app.close();
  });

  test('is counted and shown as saved, once, with its feed on the "Also in:" line', async () => {
    const store = ctx.store();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const account = await newAccount(store);
    await setEmail(store, account.id, 'reader@example.org');
    const feed = { feedUrl: 'https://daily.example/feed', feedTitle: 'The Daily Example' };
    for (let i = 0; i < 5; i++) {
      await queueFeedItem(store, account.id, {
        ...feed,
        url: `https://daily.example/2026/story-${i}`,
        title: `Daily story number ${i} about ${['tides', 'dunes', 'gulls', 'boats', 'quays'][i]}`,
        published: '2026-11-23T05:00:00.000Z',
      });
    }
    const save = async (url: string, title?: string): Promise<void> => {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/articles?apiKey=${account.apiKey}`,
        payload: title === undefined ? { url } : { url, title },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    for (let i = 0; i < 16; i++) await save(`https://own.example/${i}`, `My link ${i}`);
    await save('https://daily.example/2026/story-3', 'The boats story, saved');

    const mailer = new RecordingMailer();
    const deps = testDigestDeps(store, { now: clock.now, mailer });
    assert.equal((await buildDigestNow(deps, account.id)).status, 'built');
    const [digest] = await digestsOf(store, account.id);
    assert.ok(digest !== undefined);
    assert.deepEqual([digest.item_count, digest.saved_count, digest.feed_count], [21, 17, 1]);
    const items = await itemsOf(store, digest.id);
    const saved = items.filter((i) => i.section === 'saved');
    assert.equal(saved.length, 17);
    assert.deepEqual(
      saved.map((i) => i.title).slice(-2),
      ['My link 15', 'The boats story, saved'],
      'its place among the saved links is where it was saved',
    );
    const mine = saved.at(-1);
    assert.equal(mine?.source, 'api');
    assert.equal(mine.feed_title, 'The Daily Example');
    const fromFeed = items.filter((i) => i.section !== 'saved');
    assert.equal(fromFeed.length, 4, 'the feed’s other items only');
    assert.ok(fromFeed.every((i) => i.url !== 'https://daily.example/2026/story-3'));

    await deliverDueDigests(deps);
    const text = mailer.sent.at(-1)?.text ?? '';
    assert.match(text, /21 new links: 17 saved, 4 from 1 feed\./);
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes('The boats story, saved'));
    assert.ok(at >= 0, text);
    // Indented like the rest of its entry (issue 33, point 10).
    const also = lines.slice(at, at + 6).find((l) => l.trimStart().startsWith('Also in:'));
    assert.equal(also, '  Also in: The Daily Example', text);
    assert.equal(text.split('The boats story, saved').length - 1, 1, 'shown once');
    assert.doesNotMatch(text, /Daily story number 3/);
    assert.match(text, /^\+1 more from The Daily Example: /m, 'the feed keeps 3 of its 4 and folds 1');
  });
});
