/**
 * The digest's action pages in a real browser (Debian's Chromium, headless), with no session, as from a
 * mail app on a phone (390 px wide): nothing scrolls sideways, even with long names; the buttons act and
 * Undo puts things back (a feed's, an item's, and a reading-list link's from "From your reading list").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildDueDigests } from '../../digest/build.js';
import {
  type DigestAction,
  actionUrl,
  mintActionTokens,
  readingActionUrl,
} from '../../digest/actionTokens.js';
import { subscriptionOfFeed } from '../../store/subscriptions.js';
import {
  type Browser,
  chromiumSkipReason,
  closeBrowserAndServer,
  launchBrowser,
  listeningServer,
  sidewaysOverflows,
} from '../../test/browser.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  setDueAt,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { addReadingItems } from '../../test/readingFixtures.js';

const skip = chromiumSkipReason();

await describeEachEngine('digest action pages in Chromium at 390 px', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  const clock = new TestClock('2026-11-23T06:00:00Z');

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
  });

  test('each page fits the phone; keep, mute and their Undo work with no session', { skip }, async () => {
    const { id } = await newAccount(ctx.store());
    const longName = `The${'VeryLongFeedNameWithoutSpaces'.repeat(6)}`;
    const feedId = await queueFeedItem(ctx.store(), id, {
      feedUrl: 'https://long.example/feed.xml',
      feedTitle: longName,
      url: `https://long.example/${'segment'.repeat(30)}`,
      title: `A headline with ${'anunbreakablewordthatgoesonandon'.repeat(5)} in it`,
    });
    const [readingId = 0] = await addReadingItems(ctx.store(), id, [
      {
        url: `https://saved-long-ago.example/${'path'.repeat(40)}`,
        title: `A saved read with ${'anotherunbreakablewordfromthepast'.repeat(5)}`,
        savedAt: '2021-05-01T00:00:00.000Z',
      },
    ]);
    await setDueAt(ctx.store(), id, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: id });
    const [digest] = await digestsOf(ctx.store(), id);
    assert.ok(digest !== undefined);
    const [item] = await itemsOf(ctx.store(), digest.id);
    assert.ok(item !== undefined);
    const [token] = await mintActionTokens(
      ctx.store().db,
      [{ accountId: id, digestId: digest.id }],
      new Date(),
    );
    assert.ok(typeof token === 'string');
    const path = (action: DigestAction) => actionUrl('', token, action);
    const actions: DigestAction[] = [
      { kind: 'keep', itemId: item.id },
      { kind: 'fewer', feedId },
      { kind: 'more', feedId },
      { kind: 'mute', feedId },
    ];
    await browser.context.clearCookies();
    const reading = (kind: 'archive' | 'tomorrow') => readingActionUrl('', token, { kind, readingId });
    assert.deepEqual(
      await sidewaysOverflows(page, base, [...actions.map(path), reading('archive'), reading('tomorrow')]),
      [],
    );

    await page.goto(`${base}${path({ kind: 'keep', itemId: item.id })}`);
    await page.getByRole('button', { name: 'Keep it for tomorrow' }).click();
    assert.match(await page.getByRole('status').innerText(), /^Done: “A headline with/);
    assert.equal(
      await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      ),
      0,
      'the done page fits too',
    );
    const waiting = () =>
      ctx.store().db.selectFrom('queue_items').select('source').where('account_id', '=', id).execute();
    assert.deepEqual(await waiting(), [{ source: 'api' }]);
    await page.getByRole('button', { name: 'Undo: take it out again' }).click();
    assert.equal(await page.getByRole('status').innerText(), 'Undone.');
    assert.deepEqual(await waiting(), []);

    // "From your reading list": Archive, and its Undo.
    const state = async () =>
      (
        await ctx
          .store()
          .db.selectFrom('reading_list')
          .select('state')
          .where('id', '=', readingId)
          .executeTakeFirstOrThrow()
      ).state;
    await page.goto(`${base}${reading('archive')}`);
    await page.getByRole('button', { name: 'Archive it' }).click();
    assert.match(await page.getByRole('status').innerText(), /^Done: “A saved read with/);
    assert.equal(await state(), 'archived');
    await page.getByRole('button', { name: 'Undo: back to unread' }).click();
    assert.equal(await page.getByRole('status').innerText(), 'Undone.');
    assert.equal(await state(), 'unread');

    await page.goto(`${base}${path({ kind: 'mute', feedId })}`);
    await page.getByRole('button', { name: 'Mute for a week' }).click();
    assert.match(await page.getByRole('status').innerText(), /is muted until/);
    assert.notEqual((await subscriptionOfFeed(ctx.store().db, id, feedId))?.muted_until ?? null, null);
    await page.getByRole('button', { name: 'Undo: unmute' }).click();
    assert.equal((await subscriptionOfFeed(ctx.store().db, id, feedId))?.muted_until, null);
  });
});
