import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTidingsError } from '../errors.js';
import { feedByUrl } from '../store/feeds.js';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { feedPipelineSuite, hoursAgo, serveFeed } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { operatorAccount } from './authorize.js';
import {
  changeFilters,
  followFeed,
  followOrChoose,
  listSubscriptions,
  renameFollowed,
  unsubscribe,
} from './subscriptions.js';

/** The subscriptions service the CLI and the web share: the rules are tested here once. */

const notFound = (err: unknown): boolean => isTidingsError(err, 'not_found');

await describeEachEngine('subscriptions service', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);
  const account = async () => operatorAccount(ctx.store(), (await newAccount(ctx.store())).id);
  let path = 0;
  const twoFeeds = (): { page: string; first: string; second: string } => {
    const n = ++path;
    const first = serveFeed(server(), `/svc-${n}-posts.xml`, {
      title: 'Posts',
      items: [{ link: `https://svc.example/${n}`, title: 'A post', published: hoursAgo(1) }],
    }).url;
    const second = serveFeed(server(), `/svc-${n}-comments.xml`, { title: 'Comments', items: [] }).url;
    const page = server().route(`/svc-${n}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><title>Blog</title>' +
          `<link rel="alternate" type="application/rss+xml" href="${first}">` +
          `<link rel="alternate" type="application/rss+xml" href="${second}">`,
      );
    });
    return { page, first, second };
  };

  test('a page offering several feeds: a choice and nothing followed, or the first and the others named', async () => {
    const id = await account();
    const { page, first, second } = twoFeeds();
    const choice = await followOrChoose(deps(), id, { url: page });
    assert.deepEqual(choice, {
      kind: 'choice',
      choices: [
        { url: first, title: 'Posts' },
        { url: second, title: 'Comments' },
      ],
    });
    assert.deepEqual(await subscriptionsByAccount(ctx.store().db, id), []);

    const followed = await followFeed(deps(), id, { url: page, include: 'post' });
    assert.equal(followed.feed.url, first);
    assert.deepEqual(followed.alternatives, [{ url: second, title: 'Comments' }]);
    const list = await listSubscriptions(ctx.store(), id);
    assert.deepEqual(
      list?.subscriptions.map((s) => [s.url, s.includeFilter]),
      [[first, 'post']],
    );
  });

  test('a bad filter is refused before anything is fetched', async () => {
    const id = await account();
    const { page } = twoFeeds();
    const before = server().requests.length;
    await assert.rejects(followOrChoose(deps(), id, { url: page, exclude: '/(/' }), (err: unknown) =>
      isTidingsError(err, 'invalid_input'),
    );
    assert.equal(server().requests.length, before);
  });

  test('rename, filters and unsubscribe change only the account’s own subscription', async () => {
    const id = await account();
    const other = await account();
    const { first } = twoFeeds();
    const { subscription } = await followFeed(deps(), id, { url: first, include: 'a', exclude: 'b' });
    const sub = subscription.id;

    await renameFollowed(ctx.store(), id, sub, '  Mine  ');
    assert.equal((await listSubscriptions(ctx.store(), id))?.subscriptions[0]?.title, 'Mine');
    await renameFollowed(ctx.store(), id, sub, '');
    assert.equal((await listSubscriptions(ctx.store(), id))?.subscriptions[0]?.title, 'Posts');

    // What is not given stays; empty clears.
    assert.deepEqual(await changeFilters(ctx.store(), id, sub, { include: 'c' }), {
      include: 'c',
      exclude: 'b',
    });
    assert.deepEqual(await changeFilters(ctx.store(), id, sub, { exclude: '' }), {
      include: 'c',
      exclude: null,
    });

    await assert.rejects(renameFollowed(ctx.store(), other, sub, 'x'), notFound);
    await assert.rejects(changeFilters(ctx.store(), other, sub, { include: 'x' }), notFound);
    await assert.rejects(unsubscribe(ctx.store(), other, sub), notFound);

    await unsubscribe(ctx.store(), id, sub);
    assert.deepEqual((await listSubscriptions(ctx.store(), id))?.subscriptions, []);
    assert.equal(await feedByUrl(ctx.store().db, first), null, 'a feed nobody follows goes');
    await assert.rejects(unsubscribe(ctx.store(), id, sub), notFound);
  });
});
