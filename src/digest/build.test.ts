import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { updateAccountSettings } from '../store/accounts.js';
import {
  TestClock,
  RecordingMailer,
  digestsOf,
  dueAt,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { buildDigestNow, buildDueDigests } from './build.js';
import { loadDigest } from './load.js';

/** Building digests: what moves, what stays, when, and how often. Times are UTC unless a zone is set. */

await describeEachEngine('digest build', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = testServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  const queue = async (apiKey: string): Promise<string[]> => {
    const res = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${apiKey}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ url: string }[]>().map((i) => i.url);
  };
  /** A fresh account whose 07:00 UTC digest is due at `due`. */
  const dueAccount = async (due: string): Promise<{ id: number; apiKey: string }> => {
    const account = await newAccount(ctx.store());
    await setDueAt(ctx.store(), account.id, due);
    return account;
  };

  test('a due digest takes the whole queue in order; GET then shows only what arrived since', async () => {
    const clock = new TestClock('2026-11-23T07:00:30Z');
    const account = await dueAccount('2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), account.id, 'https://www.saved.example/one', 'One');
    await saveUrl(ctx.store(), account.id, 'https://saved.example/two');
    const feedId = await queueFeedItem(ctx.store(), account.id, {
      feedUrl: 'https://blog.example/feed.xml',
      feedTitle: 'The Blog',
      subscriptionTitle: 'My name for it',
      url: 'https://blog.example/post',
      title: 'A post',
      summary: 'What the post says.',
      published: '2026-11-22T18:00:00.000Z',
    });
    assert.equal((await queue(account.apiKey)).length, 3);

    const outcomes = await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }));
    const [digest] = await digestsOf(ctx.store(), account.id);
    assert.ok(digest !== undefined);
    assert.deepEqual(outcomes, [
      {
        status: 'built',
        accountId: account.id,
        digestId: digest.id,
        localDate: '2026-11-23',
        items: 3,
        remaining: 0,
      },
    ]);
    assert.equal(digest.item_count, 3);
    assert.deepEqual([digest.saved_count, digest.feed_count], [2, 1], 'the tally is kept with the digest');
    assert.equal(digest.remaining, 0);
    assert.equal(digest.created_at, '2026-11-23T07:00:30.000Z');
    const items = await itemsOf(ctx.store(), digest.id);
    assert.deepEqual(
      items.map((i) => [i.position, i.url, i.source, i.feed_id, i.feed_title]),
      [
        [0, 'https://www.saved.example/one', 'api', null, null],
        [1, 'https://saved.example/two', 'api', null, null],
        [2, 'https://blog.example/post', 'feed', feedId, 'My name for it'],
      ],
    );
    // Each item's domain, as the digest shows it.
    const loaded = await loadDigest(ctx.store().db, account.id, digest.id, 'https://tidings.example', {
      page: 1,
    });
    assert.deepEqual(
      loaded?.view.groups.flatMap((g) => g.items.map((i) => [i.url, i.domain])),
      [
        ['https://www.saved.example/one', 'saved.example'],
        ['https://saved.example/two', 'saved.example'],
        ['https://blog.example/post', 'blog.example'],
      ],
    );
    assert.deepEqual(
      items.map((i) => [i.title, i.summary, i.published_at]),
      [
        ['One', null, null],
        ['https://saved.example/two', null, null],
        ['A post', 'What the post says.', '2026-11-22T18:00:00.000Z'],
      ],
    );
    assert.ok(items.every((i) => i.queued_at <= new Date().toISOString()));

    assert.deepEqual(await queue(account.apiKey), [], 'GET shows an empty queue (the cached body is stale)');
    await saveUrl(ctx.store(), account.id, 'https://saved.example/later');
    await saveUrl(ctx.store(), account.id, 'https://www.saved.example/one', 'Saved again');
    assert.deepEqual(await queue(account.apiKey), [
      'https://saved.example/later',
      'https://www.saved.example/one',
    ]);
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-24T07:00:00.000Z');

    clock.advance(10 * 60_000);
    assert.deepEqual(await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now })), []);
    assert.equal((await digestsOf(ctx.store(), account.id)).length, 1, 'once per day');
  });

  test('at most max-items leave the queue, oldest first; the digest says how many wait', async () => {
    const clock = new TestClock('2026-11-23T07:01:00Z');
    const account = await dueAccount('2026-11-23T07:00:00.000Z');
    await updateAccountSettings(ctx.store().db, account.id, { digestMaxItems: 2 });
    for (let n = 1; n <= 5; n++) await saveUrl(ctx.store(), account.id, `https://max.example/${n}`);

    const deps = testDigestDeps(ctx.store(), { now: clock.now });
    const [first] = await buildDueDigests(deps, { accountId: account.id });
    assert.ok(first?.status === 'built');
    assert.deepEqual([first.items, first.remaining], [2, 3]);
    const [digest] = await digestsOf(ctx.store(), account.id);
    assert.deepEqual(
      (await itemsOf(ctx.store(), digest?.id ?? 0)).map((i) => i.url),
      ['https://max.example/1', 'https://max.example/2'],
    );
    assert.equal(digest?.remaining, 3);
    assert.deepEqual(
      await queue(account.apiKey),
      [3, 4, 5].map((n) => `https://max.example/${n}`),
    );

    clock.set('2026-11-24T07:00:00Z');
    const [second] = await buildDueDigests(deps, { accountId: account.id });
    assert.deepEqual(second?.status === 'built' ? [second.items, second.remaining] : second, [2, 1]);
  });

  test('an empty queue builds nothing when skip-empty is on, yet the schedule moves on', async () => {
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const skipping = await dueAccount('2026-11-23T07:00:00.000Z');
    const notSkipping = await dueAccount('2026-11-23T07:00:00.000Z');
    await updateAccountSettings(ctx.store().db, notSkipping.id, { digestSkipEmpty: false });
    const deps = testDigestDeps(ctx.store(), { now: clock.now });

    const [skipped] = await buildDueDigests(deps, { accountId: skipping.id });
    assert.deepEqual(skipped, { status: 'empty', accountId: skipping.id, localDate: '2026-11-23' });
    assert.deepEqual(await digestsOf(ctx.store(), skipping.id), []);
    assert.equal(await dueAt(ctx.store(), skipping.id), '2026-11-24T07:00:00.000Z');

    const [built] = await buildDueDigests(deps, { accountId: notSkipping.id });
    assert.equal(built?.status, 'built');
    const [empty] = await digestsOf(ctx.store(), notSkipping.id);
    assert.deepEqual([empty?.item_count, empty?.remaining, empty?.delivery], [0, 0, 'not_emailed']);
  });

  test('a server down for days catches up with one digest, for the latest slot', async () => {
    const account = await dueAccount('2026-11-18T07:00:00.000Z');
    await saveUrl(ctx.store(), account.id, 'https://catch.example/up');
    const clock = new TestClock('2026-11-23T12:00:00Z');
    const outcomes = await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), {
      accountId: account.id,
    });
    assert.deepEqual(
      outcomes.map((o) => [o.status, 'localDate' in o ? o.localDate : null]),
      [['built', '2026-11-23']],
    );
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-24T07:00:00.000Z');

    // Weekdays only, back on a Sunday: Friday's slot is the latest that came.
    const weekdays = await dueAccount('2026-11-20T07:00:00.000Z');
    await updateAccountSettings(ctx.store().db, weekdays.id, { digestDays: 'mon,tue,wed,thu,fri' });
    await saveUrl(ctx.store(), weekdays.id, 'https://catch.example/weekdays');
    clock.set('2026-11-29T12:00:00Z');
    const [fri] = await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), {
      accountId: weekdays.id,
    });
    assert.equal(fri?.status === 'built' ? fri.localDate : fri?.status, '2026-11-27');
    assert.equal(await dueAt(ctx.store(), weekdays.id), '2026-11-30T07:00:00.000Z');
  });

  test("the slot's local day is the reader's: Europe/Berlin's 07:00 is 06:00 UTC", async () => {
    const account = await newAccount(ctx.store());
    await updateAccountSettings(ctx.store().db, account.id, {
      timezone: 'Pacific/Auckland',
      digestDueAt: '2026-11-22T18:00:00.000Z',
    });
    await saveUrl(ctx.store(), account.id, 'https://zone.example/');
    // 07:00 in Auckland (+13) on Monday 23 November is 18:00 UTC on Sunday 22 November.
    const clock = new TestClock('2026-11-22T18:00:00Z');
    const [built] = await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), {
      accountId: account.id,
    });
    assert.equal(built?.status === 'built' ? built.localDate : built?.status, '2026-11-23');
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-23T18:00:00.000Z');
  });

  test('--force builds now for today; the day is then taken and its slot leaves the rest queued', async () => {
    const account = await dueAccount('2026-11-23T07:00:00.000Z');
    const clock = new TestClock('2026-11-23T05:00:00Z');
    const deps = testDigestDeps(ctx.store(), { now: clock.now });
    await updateAccountSettings(ctx.store().db, account.id, { digestSkipEmpty: false });
    assert.deepEqual(await buildDigestNow(deps, account.id), {
      status: 'empty',
      accountId: account.id,
      localDate: '2026-11-23',
    });

    await saveUrl(ctx.store(), account.id, 'https://force.example/1');
    const forced = await buildDigestNow(deps, account.id);
    assert.equal(forced.status, 'built');
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-23T07:00:00.000Z', 'schedule unchanged');
    assert.deepEqual(await queue(account.apiKey), []);

    await saveUrl(ctx.store(), account.id, 'https://force.example/2');
    assert.equal((await buildDigestNow(deps, account.id)).status, 'exists');
    clock.set('2026-11-23T07:00:00Z');
    const [slot] = await buildDueDigests(deps, { accountId: account.id });
    assert.equal(slot?.status, 'exists');
    assert.deepEqual(await queue(account.apiKey), ['https://force.example/2'], 'waits for tomorrow');
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-24T07:00:00.000Z');
    assert.equal((await digestsOf(ctx.store(), account.id)).length, 1);

    assert.deepEqual(await buildDigestNow(deps, 987_654), { status: 'no_account', accountId: 987_654 });
  });

  test('delivery is decided at build: email off or no address, no SMTP, or pending with a Message-ID', async () => {
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const noAddress = await dueAccount('2026-11-23T07:00:00.000Z');
    const emailOff = await dueAccount('2026-11-23T07:00:00.000Z');
    const emailed = await dueAccount('2026-11-23T07:00:00.000Z');
    await setEmail(ctx.store(), emailOff.id, 'off@example.com', false);
    await setEmail(ctx.store(), emailed.id, 'reader@example.com');
    for (const a of [noAddress, emailOff, emailed]) await saveUrl(ctx.store(), a.id, 'https://d.example/');

    const withMail = testDigestDeps(ctx.store(), { now: clock.now, mailer: new RecordingMailer() });
    for (const a of [noAddress, emailOff, emailed]) await buildDueDigests(withMail, { accountId: a.id });
    const [a] = await digestsOf(ctx.store(), noAddress.id);
    const [b] = await digestsOf(ctx.store(), emailOff.id);
    const [c] = await digestsOf(ctx.store(), emailed.id);
    assert.deepEqual([a?.delivery, a?.next_attempt_at], ['not_emailed', null]);
    assert.deepEqual([b?.delivery, b?.next_attempt_at], ['not_emailed', null]);
    assert.deepEqual([c?.delivery, c?.next_attempt_at, c?.attempts], ['pending', c?.created_at, 0]);
    assert.match(c?.message_id ?? '', new RegExp(`^<digest\\.${c?.id ?? 0}\\.[0-9a-z]+@tidings\\.example>$`));

    const noSmtp = await dueAccount('2026-11-23T07:00:00.000Z');
    await setEmail(ctx.store(), noSmtp.id, 'no-smtp@example.com');
    await saveUrl(ctx.store(), noSmtp.id, 'https://d.example/');
    await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: noSmtp.id });
    const [d] = await digestsOf(ctx.store(), noSmtp.id);
    assert.equal(d?.delivery, 'no_smtp');
  });

  test('accounts without a due time are scheduled for their next slot, not fired', async () => {
    const account = await newAccount(ctx.store());
    await setDueAt(ctx.store(), account.id, null);
    await saveUrl(ctx.store(), account.id, 'https://new.example/');
    const clock = new TestClock('2026-11-23T09:00:00Z');
    const outcomes = await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), {
      accountId: account.id,
    });
    assert.deepEqual(outcomes, []);
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-24T07:00:00.000Z');
  });

  test('an account another worker holds is left alone until its lease runs out', async () => {
    const account = await dueAccount('2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), account.id, 'https://lease.example/');
    await ctx
      .store()
      .db.updateTable('accounts')
      .set({ digest_lease_owner: 'other', digest_lease_until: '2026-11-23T07:05:00.000Z' })
      .where('id', '=', account.id)
      .execute();
    const clock = new TestClock('2026-11-23T07:01:00Z');
    const deps = testDigestDeps(ctx.store(), { now: clock.now });
    assert.deepEqual(await buildDueDigests(deps, { accountId: account.id }), []);
    clock.set('2026-11-23T07:06:00Z');
    const [taken] = await buildDueDigests(deps, { accountId: account.id });
    assert.equal(taken?.status, 'built');
  });
  test('a build that fails is logged and left to its lease; a later pass builds it', async () => {
    const account = await dueAccount('2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), account.id, 'https://error.example/');
    const clock = new TestClock('2026-11-23T07:00:00Z');
    let readings = 0;
    // The claim reads the clock once; the build's own reading fails, as a broken database would.
    const breaking = (): Date => {
      if (++readings === 2) throw new Error('the clock broke');
      return clock.now();
    };
    const failed = await buildDueDigests(testDigestDeps(ctx.store(), { now: breaking }), {
      accountId: account.id,
      owner: 'unlucky',
    });
    assert.deepEqual(failed, [{ status: 'error', accountId: account.id, message: 'the clock broke' }]);
    assert.deepEqual(await digestsOf(ctx.store(), account.id), []);
    assert.equal(await dueAt(ctx.store(), account.id), '2026-11-23T07:00:00.000Z');

    const deps = testDigestDeps(ctx.store(), { now: clock.now });
    assert.deepEqual(await buildDueDigests(deps, { accountId: account.id }), [], 'its lease holds');
    clock.advance(6 * 60_000);
    const [built] = await buildDueDigests(deps, { accountId: account.id });
    assert.equal(built?.status, 'built');
  });
});
