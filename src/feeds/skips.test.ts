import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listSubscriptions } from '../accounts/subscriptions.js';
import type { AccountId } from '../lib/authorized.js';
import { codePoints } from '../lib/text.js';
import { MAX_TITLE_LENGTH } from '../queue/url.js';
import type { SubscriptionView } from '../store/subscriptions.js';
import {
  type FixtureItem,
  feedPipelineSuite,
  hoursAgo,
  queueRows,
  serveFeed,
  testRefreshDeps,
} from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { pollOnce } from './poller.js';
import { subscribe } from './subscribe/subscribe.js';

/**
 * Feed items a subscription's rules would queue: a title over the queue's limit is shortened, never a
 * reason to drop the item; an item that cannot be queued (no link, a refused link, a full queue) is
 * counted on the subscription with its reason, for `feed list` and the Feeds page.
 */

let path = 0;
const nextPath = (): string => `/skips-${++path}.xml`;

/** A title of whole words, exactly `length` characters long. */
function wordsOf(length: number, seed: string): string {
  let title = '';
  for (let i = 0; title.length < length; i++) title += `${title === '' ? '' : ' '}${seed}${i}`;
  return title.slice(0, length).trimEnd().padEnd(length, 'x');
}

await describeEachEngine('feed items not queued', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);
  const view = async (accountId: AccountId): Promise<SubscriptionView> => {
    const list = await listSubscriptions(ctx.store(), accountId);
    const [sub] = list?.subscriptions ?? [];
    assert.ok(sub !== undefined);
    return sub;
  };

  test('titles of 996 to 5,006 characters are all queued, those over 1,000 cut on a word with "…"', async () => {
    const lengths = [996, 1000, 1001, 1200, 2500, 5006];
    const items: FixtureItem[] = lengths.map((n, i) => ({
      link: `https://long.example/${n}`,
      title: wordsOf(n, `w${i}x`),
      published: hoursAgo(i + 1),
    }));
    const feed = serveFeed(server(), nextPath(), { title: 'Long titles', items });
    const account = await newAccount(ctx.store());
    await subscribe(deps(), account.id, { url: feed.url });

    const rows = await queueRows(ctx.store(), account.id);
    assert.equal(rows.length, lengths.length, 'every item queued, none dropped');
    for (const item of items) {
      const row = rows.find((r) => r.url === item.link);
      assert.ok(row !== undefined, item.link ?? '');
      if (item.title.length <= MAX_TITLE_LENGTH) {
        assert.equal(row.title, item.title);
        continue;
      }
      assert.ok(codePoints(row.title) <= MAX_TITLE_LENGTH, `${codePoints(row.title)} characters`);
      assert.ok(row.title.endsWith('…'), row.title.slice(-20));
      const kept = row.title.slice(0, -1);
      assert.ok(item.title.startsWith(kept));
      assert.equal(item.title.charAt(kept.length), ' ', 'cut between two words');
    }
    const sub = await view(account.id);
    assert.deepEqual([sub.skippedItems, sub.lastSkipReason, sub.lastSkippedAt], [0, null, null]);
  });

  test('an item without a link or with a refused one is counted on the subscription, with the reason', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Odd items',
      items: [
        { link: 'https://odd.example/fine', title: 'Fine', published: hoursAgo(1) },
        { link: null, guid: 'no-link-1', title: 'No link', published: hoursAgo(2) },
        { link: `https://odd.example/${'a'.repeat(2100)}`, title: 'Too long a link', published: hoursAgo(3) },
      ],
    });
    const account = await newAccount(ctx.store());
    await subscribe(deps(), account.id, { url: feed.url });
    assert.deepEqual(
      (await queueRows(ctx.store(), account.id)).map((r) => r.title),
      ['Fine'],
    );
    const sub = await view(account.id);
    assert.equal(sub.skippedItems, 2);
    // Oldest first: the too-long link, then the item without one.
    assert.equal(sub.lastSkipReason, 'it has no link');
    assert.ok(sub.lastSkippedAt !== null);

    // Polled again, nothing new: nothing counted twice. A new item without a link: one more.
    await pollOnce(deps(), { all: true });
    assert.equal((await view(account.id)).skippedItems, 2);
    feed.items.unshift({
      link: `https://odd.example/${'b'.repeat(2100)}`,
      title: 'Long again',
      published: new Date(),
    });
    await pollOnce(deps(), { all: true });
    const again = await view(account.id);
    assert.equal(again.skippedItems, 3);
    assert.equal(again.lastSkipReason, 'its link is longer than 2,048 characters');
  });

  test('items a full queue cannot take are counted too', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Busy',
      items: [1, 2, 3].map((n) => ({
        link: `https://busy.example/${n}`,
        title: `Busy ${n}`,
        published: hoursAgo(n),
      })),
    });
    const account = await newAccount(ctx.store());
    await subscribe(testRefreshDeps(ctx.store(), { queueLimit: 1 }), account.id, { url: feed.url });
    assert.equal((await queueRows(ctx.store(), account.id)).length, 1);
    const sub = await view(account.id);
    assert.deepEqual([sub.skippedItems, sub.lastSkipReason], [2, 'the queue was full']);
  });
});
