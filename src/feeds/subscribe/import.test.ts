import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { TidingsError } from '../../errors.js';
import type { Store } from '../../store/db.js';
import { subscriptionsByAccount } from '../../store/subscriptions.js';
import {
  deleteAllFeeds,
  hoursAgo,
  queueUrls,
  serveFeed,
  testRefreshDeps,
  useFeedServer,
} from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { importOpml } from './import.js';
import type { OpmlOutline } from './opml.js';
import { subscribe } from './subscribe.js';

/** OPML import: each feed of the file subscribed in batches, within the two limits, refused whole past one. */

const outline = (url: string, title = url, folder: string | null = null): OpmlOutline => ({
  url,
  title,
  htmlUrl: null,
  folder,
});

/** `n` feeds at made-up addresses (never fetched: an import does not fetch). */
const feeds = (n: number, prefix: string): OpmlOutline[] =>
  Array.from({ length: n }, (_, i) =>
    outline(`https://${prefix}${i}.example/feed`, `${prefix} ${i}`, 'Folder'),
  );

const refusal = (err: unknown): string => {
  assert.ok(err instanceof TidingsError, String(err));
  assert.equal(err.kind, 'limit_reached');
  return err.message;
};

async function feedCount(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('feeds')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

await describeEachEngine('OPML import', (ctx) => {
  const server = useFeedServer();
  beforeEach(() => deleteAllFeeds(ctx.store()));
  const deps = (limits: { maxSubscriptions?: number; maxOpmlOutlines?: number } = {}) =>
    testRefreshDeps(ctx.store(), limits);
  const subs = (accountId: number) => subscriptionsByAccount(ctx.store().db, accountId);

  test('more feeds than a batch: each one subscribed in order, titles and folders kept; repeats and bad URLs told', async () => {
    const account = await newAccount(ctx.store());
    const list = [
      ...feeds(1234, 'a'),
      outline('https://a0.example/feed', 'again, in another folder', 'Other'),
      outline('ftp://files.example/feed'),
      outline(`https://long.example/${'x'.repeat(2100)}`),
    ];
    const result = await importOpml(deps(), account.id, list);
    assert.deepEqual([result.added, result.known], [1234, 1]);
    assert.deepEqual(
      result.refused.map((r) => r.message),
      [
        'not an http(s) feed URL: ftp://files.example/feed',
        'the feed URL is 2121 characters long; at most 2048 are allowed',
      ],
    );
    const made = await subs(account.id);
    assert.equal(made.length, 1234);
    assert.deepEqual(
      made.slice(0, 2).map((s) => [s.url, s.title, s.folder]),
      [
        ['https://a0.example/feed', 'a 0', 'Folder'],
        ['https://a1.example/feed', 'a 1', 'Folder'],
      ],
    );
    assert.equal(made.at(-1)?.url, 'https://a1233.example/feed');

    const twice = await importOpml(deps(), account.id, feeds(1234, 'a'));
    assert.deepEqual([twice.added, twice.known, twice.refused.length], [0, 1234, 0]);
  });

  test('a file listing more feeds than one import may is refused whole, the limit named', async () => {
    const account = await newAccount(ctx.store());
    const err = await importOpml(deps({ maxOpmlOutlines: 100 }), account.id, feeds(101, 'b')).catch(
      (e: unknown) => e,
    );
    assert.equal(
      refusal(err),
      'the file lists 101 feeds; one import may list at most 100 (TIDINGS_MAX_OPML_OUTLINES)',
    );
    assert.deepEqual(await subs(account.id), []);
    const exactly = await importOpml(deps({ maxOpmlOutlines: 100 }), account.id, feeds(100, 'b'));
    assert.equal(exactly.added, 100);
  });

  test('an import that would pass the subscription limit is refused whole; up to it, it is taken', async () => {
    const account = await newAccount(ctx.store());
    const limited = deps({ maxSubscriptions: 1000 });
    assert.equal((await importOpml(limited, account.id, feeds(600, 'c'))).added, 600);
    // 600 followed, 100 of them listed again, 401 new: one too many.
    const list = [...feeds(100, 'c'), ...feeds(401, 'd')];
    const err = await importOpml(limited, account.id, list).catch((e: unknown) => e);
    assert.equal(
      refusal(err),
      'importing would make the account follow 1,001 feeds (600 now, 401 new in the file); an account may follow at most 1,000 (TIDINGS_MAX_SUBSCRIPTIONS)',
    );
    assert.equal((await subs(account.id)).length, 600, 'nothing of the refused file');
    const fits = await importOpml(limited, account.id, list.slice(0, -1));
    assert.deepEqual([fits.added, fits.known], [400, 100]);
    assert.equal((await subs(account.id)).length, 1000);
  });

  test('two imports at once cannot pass the limit together: the one that comes second is cut at it', async () => {
    const account = await newAccount(ctx.store());
    const limited = deps({ maxSubscriptions: 600 });
    // Each fits alone, so both pass the check before the first batch; the batches then take turns.
    const [first, second] = await Promise.all([
      importOpml(limited, account.id, feeds(400, 'e')),
      importOpml(limited, account.id, feeds(400, 'f')),
    ]);
    assert.equal(first.added + second.added, 600);
    const refused = [...first.refused, ...second.refused];
    assert.equal(refused.length, 200);
    assert.match(
      refused[0]?.message ?? '',
      /follows 600 feeds, the most it may \(TIDINGS_MAX_SUBSCRIPTIONS\)/,
    );
    assert.equal((await subs(account.id)).length, 600);
    assert.equal(await feedCount(ctx.store()), 600, 'no feed made for a refused subscription');
  });

  test('following one feed at the limit is refused, and leaves no feed behind; one followed already is fine', async () => {
    const account = await newAccount(ctx.store());
    const limited = deps({ maxSubscriptions: 3 });
    await importOpml(limited, account.id, feeds(3, 'g'));
    const err = await subscribe(limited, account.id, { url: 'https://h.example/feed', trusted: true }).catch(
      (e: unknown) => e,
    );
    assert.equal(refusal(err), 'the account follows 3 feeds, the most it may (TIDINGS_MAX_SUBSCRIPTIONS)');
    assert.equal(await feedCount(ctx.store()), 3);
    const again = await subscribe(limited, account.id, { url: 'https://g0.example/feed', trusted: true });
    assert.equal(again.created, false);
  });

  test('a new subscription to a feed Tidings has fetched gets its backfill window at once', async () => {
    const feed = serveFeed(server(), '/import-known.xml', {
      title: 'Known',
      items: [{ link: 'https://known.example/1', title: 'One', published: hoursAgo(1) }],
    });
    await subscribe(deps(), (await newAccount(ctx.store())).id, { url: feed.url });
    const account = await newAccount(ctx.store());
    const result = await importOpml(deps(), account.id, [outline(feed.url, 'Mine'), ...feeds(2, 'k')]);
    assert.equal(result.added, 3);
    assert.deepEqual(await queueUrls(ctx.store(), account.id), ['https://known.example/1']);
  });
});
