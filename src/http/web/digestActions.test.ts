import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { grantAccount } from '../../accounts/authorize.js';
import { changeAccountSettings } from '../../accounts/changeSettings.js';
import { buildDueDigests } from '../../digest/build.js';
import { type DigestAction, actionUrl, mintActionTokens } from '../../digest/actionTokens.js';
import { subscriptionOfFeed, updateSubscriptionShare } from '../../store/subscriptions.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * The digest's action links end to end (issue 24, point 5): a token minted for a built digest opens
 * /digest-actions/TOKEN?do=…; GET says what its button will do and changes nothing; POST, without cookie
 * or CSRF token, keeps an item for tomorrow (queued as the reader's own link) or moves a feed's share one
 * step, or mutes it; Undo puts it back. Tokens of another account, items and feeds not in the token's
 * digest, malformed queries, revoked tokens: the 404 page.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';

await describeEachEngine('digest action links', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');

  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());

  const db = () => ctx.store().db;

  /**
   * An account with a digest built of a saved link and three feed items (two feeds) and a token of its
   * own: the ids the actions name.
   */
  async function digestWithToken() {
    const account = await newAccount(ctx.store());
    const n = account.id;
    const news = await queueFeedItem(ctx.store(), n, {
      feedUrl: `https://news${n}.example/feed.xml`,
      feedTitle: 'Daily News',
      url: `https://news${n}.example/1`,
      title: 'First story',
    });
    await queueFeedItem(ctx.store(), n, {
      feedUrl: `https://news${n}.example/feed.xml`,
      feedTitle: 'Daily News',
      url: `https://news${n}.example/2`,
      title: 'Second story',
    });
    const blog = await queueFeedItem(ctx.store(), n, {
      feedUrl: `https://blog${n}.example/feed.xml`,
      feedTitle: 'A Blog',
      url: `https://blog${n}.example/post`,
      title: 'A post',
    });
    await saveUrl(ctx.store(), n, `https://saved${n}.example/`, 'Saved by hand');
    clock.advance(DAY);
    await setDueAt(ctx.store(), n, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: n });
    const [digest] = await digestsOf(ctx.store(), n);
    assert.ok(digest !== undefined, 'the digest was built');
    const items = await itemsOf(ctx.store(), digest.id);
    const story = items.find((i) => i.url === `https://news${n}.example/1`);
    assert.ok(story !== undefined);
    const [token] = await mintActionTokens(db(), [{ accountId: n, digestId: digest.id }], clock.now());
    assert.ok(typeof token === 'string');
    const link = (action: DigestAction): string => {
      const url = new URL(actionUrl(BASE, token, action));
      return url.pathname + url.search;
    };
    return { account, digest, story, news, blog, token, link };
  }

  const bare = (method: 'GET' | 'POST' | 'HEAD', url: string, payload?: string) =>
    app.inject({
      method,
      url,
      headers: {
        accept: 'text/html',
        ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });

  const share = async (accountId: number, feedId: number) => {
    const sub = await subscriptionOfFeed(db(), accountId, feedId);
    return [sub?.per_digest ?? null, sub?.muted_until ?? null];
  };
  const queued = (accountId: number) =>
    db()
      .selectFrom('queue_items')
      .select(['url', 'title', 'source'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();

  test('the link is the token’s path with the action in its query; only the token’s hash is kept', async () => {
    const { account, digest, story, news, token, link } = await digestWithToken();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(
      actionUrl(`${BASE}/`, token, { kind: 'keep', itemId: story.id }),
      `${BASE}/digest-actions/${token}?do=keep&item=${story.id}`,
    );
    assert.equal(link({ kind: 'mute', feedId: news }), `/digest-actions/${token}?do=mute&feed=${news}`);
    const rows = await db()
      .selectFrom('digest_action_tokens')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.digest_id, /^[0-9a-f]{64}$/.test(r.token_hash), r.token_hash.includes(token)]),
      [[digest.id, true, false]],
    );
    // A digest that is not the account's gets no token.
    const other = await newAccount(ctx.store());
    assert.deepEqual(
      await mintActionTokens(db(), [{ accountId: other.id, digestId: digest.id }], clock.now()),
      [null],
    );
  });

  test('GET describes each action, changes nothing, and needs no sign-in', async () => {
    const { account, story, news, link } = await digestWithToken();
    const before = await queued(account.id);
    const cases: [DigestAction, RegExp, RegExp][] = [
      [{ kind: 'keep', itemId: story.id }, /First story/, />Keep it for tomorrow<\/button>/],
      [
        { kind: 'fewer', feedId: news },
        /shows up to 3 of its entries \(the default\) from/,
        /up to 2 of its/,
      ],
      [{ kind: 'more', feedId: news }, /Daily News/, /With more it shows up to 5 of its entries/],
      [
        { kind: 'mute', feedId: news },
        /Muting “<span dir="auto">Daily News<\/span>” for a week/,
        /Mute for a week/,
      ],
    ];
    for (const [action, says, offers] of cases) {
      for (const method of ['GET', 'HEAD'] as const) {
        assert.equal((await bare(method, link(action))).statusCode, 200, `${method} ${action.kind}`);
      }
      const page = await bare('GET', link(action));
      assert.match(page.body, says);
      assert.match(page.body, offers);
      assert.match(page.body, /<form class="inline" method="post" action="\/digest-actions\/[^"]+\?do=/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.doesNotMatch(page.body, /_csrf/);
    }
    // A parameter a mail provider adds is ignored; the form posts to the link as built.
    const tracked = await bare('GET', `${link({ kind: 'fewer', feedId: news })}&utm_source=mail`);
    assert.equal(tracked.statusCode, 200);
    const built = link({ kind: 'fewer', feedId: news }).replace(/&/g, '&amp;');
    assert.ok(tracked.body.includes(`action="${built}"`), 'the form posts to the link as built');
    assert.deepEqual(await queued(account.id), before, 'no GET queued anything');
    assert.deepEqual(await share(account.id, news), [null, null], 'no GET changed the feed');
  });

  test('keep queues the item as the reader’s own link (API GET, next digest); Undo takes it out', async () => {
    const { account, story, link } = await digestWithToken();
    const api = async () =>
      (await app.inject({ method: 'GET', url: `/api?api_key=${account.apiKey}` })).json<{ url: string }[]>();
    assert.deepEqual(await api(), []);
    const keep = link({ kind: 'keep', itemId: story.id });
    const done = await bare('POST', keep, '');
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Done: “<span dir="auto">First story<\/span>” is back in your queue/);
    assert.deepEqual(await queued(account.id), [{ url: story.url, title: 'First story', source: 'api' }]);
    assert.deepEqual(await api(), [{ url: story.url, title: 'First story' }]);
    const queuedId = /name="queued" value="(\d+)"/.exec(done.body)?.[1];
    assert.ok(queuedId !== undefined, 'an Undo button');

    // Again: already waiting, nothing added, nothing to undo.
    const again = await bare('POST', keep, '');
    assert.match(again.body, /was already in your queue/);
    assert.doesNotMatch(again.body, /Undo/);
    assert.equal((await queued(account.id)).length, 1);

    // A forged undo (another queue item) removes nothing; the real one does.
    const forged = await bare('POST', keep, `undo=1&queued=${Number(queuedId) + 1000}`);
    assert.equal(forged.statusCode, 200);
    assert.match(forged.body, /Nothing to undo/);
    assert.equal((await queued(account.id)).length, 1);
    assert.equal((await bare('POST', keep, 'undo=1&queued=x')).statusCode, 400);
    const undone = await bare('POST', keep, `undo=1&queued=${queuedId}`);
    assert.equal(undone.statusCode, 200);
    assert.match(undone.body, /Undone\./);
    assert.match(undone.body, />Keep it for tomorrow<\/button>/, 'it can be kept again');
    assert.deepEqual(await queued(account.id), []);

    // Kept again, it is in the next digest, as a saved link.
    assert.equal((await bare('POST', keep, '')).statusCode, 200);
    clock.advance(DAY);
    await setDueAt(ctx.store(), account.id, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: account.id });
    const next = (await digestsOf(ctx.store(), account.id)).at(-1);
    assert.ok(next !== undefined);
    const items = await itemsOf(ctx.store(), next.id);
    assert.deepEqual(
      items.map((i) => [i.url, i.source]),
      [[story.url, 'api']],
    );
    // Its undo now finds nothing waiting.
    assert.match((await bare('POST', keep, `undo=1&queued=${queuedId}`)).body, /Nothing to undo/);
  });

  test('clicks at once each take their step: two Fewer POSTs, two steps; four More, four', async () => {
    const { account, news, link } = await digestWithToken();
    const fewer = link({ kind: 'fewer', feedId: news });
    const both = await Promise.all([bare('POST', fewer, ''), bare('POST', fewer, '')]);
    assert.deepEqual(
      both.map((r) => r.statusCode),
      [200, 200],
    );
    // From the default 3: 2, then 1, whichever click was first; each page says what its own step did.
    assert.deepEqual(await share(account.id, news), [1, null]);
    assert.deepEqual(both.map((r) => /up to (\d) of its entries/.exec(r.body)?.[1]).sort(), ['1', '2']);
    const more = link({ kind: 'more', feedId: news });
    await Promise.all([1, 2, 3, 4].map(() => bare('POST', more, '')));
    assert.deepEqual(await share(account.id, news), [10, null], '1 → 2 → 3 → 5 → 10');
    // The write under it: a step from a value the row no longer holds writes nothing (then it reads again).
    const sub = await subscriptionOfFeed(db(), account.id, news);
    assert.ok(sub !== null);
    const stale = { ifPerDigest: 3 };
    assert.equal(await updateSubscriptionShare(db(), account.id, sub.id, { perDigest: 2 }, stale), null);
    assert.deepEqual(await share(account.id, news), [10, null]);
    const fresh = { ifPerDigest: 10 };
    assert.equal(
      (await updateSubscriptionShare(db(), account.id, sub.id, { perDigest: 5 }, fresh))?.per_digest,
      5,
    );
  });

  test('fewer and more move the feed’s share one step, mute for a week; Undo restores each', async () => {
    const { account, news, blog, link } = await digestWithToken();
    const fewer = link({ kind: 'fewer', feedId: news });
    const done = await bare('POST', fewer, '');
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Done: each digest shows up to 2 of its entries from/);
    assert.deepEqual(await share(account.id, news), [2, null]);
    assert.deepEqual(await share(account.id, blog), [null, null], 'the other feed is left alone');
    assert.match(done.body, /name="previous" value="default"/);
    assert.match(done.body, /Undo: back to 3 \(the default\)/);
    const undone = await bare('POST', fewer, 'undo=1&previous=default');
    assert.match(undone.body, /Undone\./);
    assert.deepEqual(await share(account.id, news), [null, null]);

    // Down to 0 step by step; then there is nothing fewer.
    for (const expected of [2, 1, 0]) {
      await bare('POST', fewer, '');
      assert.deepEqual(await share(account.id, news), [expected, null]);
    }
    const none = await bare('POST', fewer, '');
    assert.match(none.body, /Nothing to change/);
    assert.match((await bare('GET', fewer)).body, /That is already the fewest/);

    const more = link({ kind: 'more', feedId: news });
    for (const expected of [1, 2, 3, 5, 10, -1]) {
      await bare('POST', more, '');
      assert.deepEqual(await share(account.id, news), [expected, null]);
    }
    assert.match((await bare('GET', more)).body, /That is already all of them/);
    assert.match((await bare('POST', more, 'undo=1&previous=10')).body, /Undone/);
    assert.deepEqual(await share(account.id, news), [10, null]);
    assert.equal((await bare('POST', more, 'undo=1&previous=101')).statusCode, 400);
    assert.deepEqual(await share(account.id, news), [10, null]);

    const mute = link({ kind: 'mute', feedId: blog });
    const muted = await bare('POST', mute, '');
    const until = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    assert.match(muted.body, new RegExp(`is muted until\\s*<time datetime="${until}">`));
    assert.deepEqual(await share(account.id, blog), [null, until]);
    assert.match((await bare('GET', mute)).body, /It is muted until/);
    assert.match((await bare('POST', mute, 'undo=1')).body, /Undone/);
    assert.deepEqual(await share(account.id, blog), [null, null]);
  });

  test('another account’s token, an item or feed not in the digest, a bad query, a revoked token: 404', async () => {
    const a = await digestWithToken();
    const b = await digestWithToken();
    const notFound = await bare('GET', `/digest-actions/${'A'.repeat(43)}?do=keep&item=1`);
    assert.equal(notFound.statusCode, 404);
    const refused = [
      // B's token names A's item and A's feed: not B's digest.
      b.link({ kind: 'keep', itemId: a.story.id }),
      b.link({ kind: 'fewer', feedId: a.news }),
      b.link({ kind: 'mute', feedId: a.blog }),
      // A feed that exists, of the account, but has no item in the digest (never a 500).
      a.link({ kind: 'more', feedId: 999_999 }),
      `/digest-actions/${a.token}?do=delete&feed=${a.news}`,
      `/digest-actions/${a.token}?do=keep&item=abc`,
      `/digest-actions/${a.token}?do=keep&feed=${a.news}`,
      `/digest-actions/${a.token}?do=fewer`,
      `/digest-actions/${a.token}?do=keep&item=${a.story.id}&item=${a.story.id}`,
      `/digest-actions/${a.token}?do=keep&item=${'9'.repeat(40)}`,
      `/digest-actions/${a.token}`,
      '/digest-actions/short?do=keep&item=1',
    ];
    for (const path of refused) {
      const get = await bare('GET', path);
      assert.equal(get.statusCode, 404, `GET ${path}`);
      assert.equal(get.body, notFound.body, 'looks like any unknown address');
      assert.equal((await bare('POST', path, '')).statusCode, 404, `POST ${path}`);
    }
    assert.deepEqual(await share(a.account.id, a.news), [null, null]);
    assert.deepEqual(await share(b.account.id, b.news), [null, null]);
    assert.deepEqual(await queued(b.account.id), []);

    // Settings' "Reset unsubscribe links" revokes the action links too (CSRF-checked, signed in).
    const fewer = a.link({ kind: 'fewer', feedId: a.news });
    const client = new WebClient(app);
    await client.signIn(a.account.apiKey);
    const settings = await client.get('/settings');
    assert.match(settings.body, /\(keep for\s+tomorrow, fewer or more from a feed, mute it for a week\)/);
    assert.equal(
      (await client.post('/settings/reset-unsubscribe', { _csrf: 'x'.repeat(43) })).statusCode,
      403,
    );
    assert.equal((await bare('GET', fewer)).statusCode, 200);
    assert.equal((await client.post('/settings/reset-unsubscribe')).statusCode, 303);
    assert.equal((await bare('GET', fewer)).statusCode, 404);
    assert.equal((await bare('POST', fewer, '')).statusCode, 404);
    assert.deepEqual(await share(a.account.id, a.news), [null, null]);
    assert.equal(
      (await bare('GET', b.link({ kind: 'fewer', feedId: b.news }))).statusCode,
      200,
      'B’s still work',
    );

    // A new email address revokes them too.
    const [fresh] = await mintActionTokens(
      db(),
      [{ accountId: a.account.id, digestId: a.digest.id }],
      clock.now(),
    );
    assert.ok(typeof fresh === 'string');
    const path = `/digest-actions/${fresh}?do=mute&feed=${a.news}`;
    assert.equal((await bare('GET', path)).statusCode, 200);
    await changeAccountSettings(ctx.store(), grantAccount(a.account.id), { email: 'new@example.org' });
    assert.equal((await bare('GET', path)).statusCode, 404);
  });
});
