import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { grantAccount } from '../../accounts/authorize.js';
import { setDigestShare } from '../../accounts/digestShare.js';
import { subscriptionById } from '../../store/subscriptions.js';
import { TestClock, queueFeedItem } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/** The Feeds page's "In each digest" and "Priority" form, and "Muted until … — Unmute". */

await describeEachEngine('web app: a feed’s share of the digest', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');

  before(async () => {
    app = webServer(ctx.store(), { now: clock.now });
    await app.ready();
  });
  after(() => app.close());

  /** A signed-in reader following one feed: the client and the subscription's id. */
  async function reader() {
    const account = await newAccount(ctx.store());
    const feedId = await queueFeedItem(ctx.store(), account.id, {
      feedUrl: `https://busy${account.id}.example/feed.xml`,
      feedTitle: 'Busy News',
      url: `https://busy${account.id}.example/1`,
      title: 'Story',
    });
    const sub = await ctx
      .store()
      .db.selectFrom('subscriptions')
      .select('id')
      .where('account_id', '=', account.id)
      .where('feed_id', '=', feedId)
      .executeTakeFirstOrThrow();
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    return { account, client, id: sub.id };
  }

  const row = async (accountId: number, id: number) => {
    const sub = await subscriptionById(ctx.store().db, accountId, id);
    return [sub?.per_digest ?? null, sub?.priority, sub?.muted_until ?? null];
  };

  test('each feed has the form, with the default selected; saving it changes that feed only', async () => {
    const { account, client, id } = await reader();
    const page = await client.get('/feeds');
    assert.match(page.body, new RegExp(`<form class="stack" method="post" action="/feeds/${id}/share">`));
    assert.match(page.body, /<label for="per-digest-\d+">In each digest<\/label>/);
    assert.match(page.body, /<option value="default"\s+selected>default \(3\)<\/option>/);
    assert.match(page.body, /<option value="all"\s*>all<\/option>/);
    assert.match(page.body, /<option value="0"\s*>0 \(only counted\)<\/option>/);
    assert.match(page.body, /<option value="10"\s*>10<\/option>/);
    assert.match(page.body, /<option value="normal"\s+selected>normal<\/option>/);
    assert.doesNotMatch(page.body, /Muted until/);

    const saved = await client.post(`/feeds/${id}/share`, { per_digest: 'all', priority: 'high' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/feeds?notice=share#feed-${id}`);
    assert.deepEqual(await row(account.id, id), [-1, 'high', null]);
    const after = await client.get('/feeds?notice=share');
    assert.match(after.body, /Saved\. Your next digest shows the feed this way\./);
    assert.match(after.body, /Each digest shows all of its entries\./);
    assert.match(after.body, /Priority high:\s+placed first\./);
    assert.match(after.body, /<option value="all"\s+selected>all<\/option>/);
    assert.match(after.body, /<option value="high"\s+selected>high<\/option>/);

    await client.post(`/feeds/${id}/share`, { per_digest: '0', priority: 'low' });
    assert.deepEqual(await row(account.id, id), [0, 'low', null]);
    await client.post(`/feeds/${id}/share`, { per_digest: 'default', priority: 'normal' });
    assert.deepEqual(await row(account.id, id), [null, 'normal', null]);
    // A number past the form's list, set elsewhere, is offered and selected.
    await setDigestShare(ctx.store(), grantAccount(account.id), id, { perDigest: 40 });
    assert.match((await client.get('/feeds')).body, /<option value="40"\s+selected>40<\/option>/);
  });

  test('a bad value is refused with words, a forged form with 403, another reader’s feed with 404', async () => {
    const { account, client, id } = await reader();
    const other = await reader();
    await client.get('/feeds');
    for (const fields of <Record<string, string>[]>[
      { per_digest: '101', priority: 'normal' },
      { per_digest: '3', priority: 'urgent' },
      { per_digest: 'lots', priority: 'high' },
      { priority: 'high' },
    ]) {
      const res = await client.post(`/feeds/${id}/share`, fields);
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(res.body, /Choose how many entries each digest shows, and a priority\./);
    }
    const forged = await client.post(`/feeds/${id}/share`, {
      _csrf: 'x'.repeat(43),
      per_digest: 'all',
      priority: 'high',
    });
    assert.equal(forged.statusCode, 403);
    await client.get('/feeds');
    const foreign = await client.post(`/feeds/${other.id}/share`, { per_digest: 'all', priority: 'high' });
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(await row(account.id, id), [null, 'normal', null]);
    assert.deepEqual(await row(other.account.id, other.id), [null, 'normal', null]);
  });

  test('a muted feed says until when, with an Unmute button (CSRF-checked)', async () => {
    const { account, client, id } = await reader();
    const until = new Date(clock.now().getTime() + 7 * 24 * 3_600_000).toISOString();
    await setDigestShare(ctx.store(), grantAccount(account.id), id, { mutedUntil: until });
    const page = await client.get('/feeds');
    assert.match(page.body, new RegExp(`action="/feeds/${id}/unmute"`));
    assert.match(page.body, new RegExp(`Muted until\\s*<time datetime="${until}"`));
    assert.match(page.body, />Unmute<\/button>/);
    assert.equal((await client.post(`/feeds/${id}/unmute`, { _csrf: 'y'.repeat(43) })).statusCode, 403);
    assert.deepEqual(await row(account.id, id), [null, 'normal', until]);
    await client.get('/feeds');
    const unmuted = await client.post(`/feeds/${id}/unmute`);
    assert.equal(unmuted.statusCode, 303);
    assert.deepEqual(await row(account.id, id), [null, 'normal', null]);
    assert.doesNotMatch((await client.get('/feeds?notice=unmuted')).body, /Muted until/);

    // A mute that has ended is not shown.
    await setDigestShare(ctx.store(), grantAccount(account.id), id, {
      mutedUntil: new Date(clock.now().getTime() - 1000).toISOString(),
    });
    assert.doesNotMatch((await client.get('/feeds')).body, /Muted until/);
  });
});
