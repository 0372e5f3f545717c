import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDueDigests } from '../../digest/build.js';
import {
  type DigestAction,
  type ReadingAction,
  actionUrl,
  mintActionTokens,
  readingActionUrl,
} from '../../digest/actionTokens.js';
import { mintUnsubscribeToken } from '../../digest/unsubscribe.js';
import { localeOf } from '../../i18n/locale.js';
import { escapeHtml } from '../../lib/escape.js';
import { updateAccountSettings } from '../../store/accounts.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { addReadingItems } from '../../test/readingFixtures.js';
import { webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6: the pages a digest's signed links open (its actions, "From your reading list"'s,
 * unsubscribe) are in the language of the account the token names, whatever the browser asks. Rendered in
 * the pseudo-locale en-XA — each action's preview, done and undo pages, and unsubscribe's states — they
 * leave no English word but the fixture's own (titles, feed names, the zone); an Arabic account's pages
 * run right to left.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';
const ZONE = 'Europe/Berlin';
/** The fixture's own words: titles, feed names, the zone. */
const CONTENT = ['Daily News', 'First story', 'Second story', 'Saved long ago 1', 'Saved long ago 2', ZONE];

await describeEachEngine('action pages: the account’s language', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');

  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());

  /** An account in `language` with a digest of a feed's two stories and two reading-list links; its links. */
  async function digestIn(language: string) {
    const account = await newAccount(ctx.store());
    const n = account.id;
    await updateAccountSettings(ctx.store().db, n, { language, timezone: ZONE });
    const feedId = await queueFeedItem(ctx.store(), n, {
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
    const reading = await addReadingItems(
      ctx.store(),
      n,
      [1, 2].map((i) => ({
        url: `https://read${i}.example/${n}`,
        title: `Saved long ago ${i}`,
        savedAt: `2023-0${i}-01T00:00:00.000Z`,
      })),
    );
    await saveUrl(ctx.store(), n, `https://own${n}.example/`, 'First story');
    clock.advance(DAY);
    await setDueAt(ctx.store(), n, clock.now().toISOString());
    await buildDueDigests(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: n });
    const digest = (await digestsOf(ctx.store(), n)).at(-1);
    assert.ok(digest !== undefined, 'the digest was built');
    const story = (await itemsOf(ctx.store(), digest.id)).find((i) => i.url === `https://news${n}.example/1`);
    assert.ok(story !== undefined);
    const [token] = await mintActionTokens(
      ctx.store().db,
      [{ accountId: n, digestId: digest.id }],
      clock.now(),
    );
    assert.ok(typeof token === 'string');
    const path = (url: string): string => new URL(url).pathname + new URL(url).search;
    return {
      account,
      feedId,
      storyId: story.id,
      reading,
      link: (action: DigestAction) => path(actionUrl(BASE, token, action)),
      readingLink: (action: ReadingAction) => path(readingActionUrl(BASE, token, action)),
    };
  }

  // The browser asks for English: the token's account decides.
  const request = async (method: 'GET' | 'POST', url: string, payload?: string) => {
    return app.inject({
      method,
      url,
      headers: {
        accept: 'text/html',
        'accept-language': 'en',
        ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
  };

  /** The hidden fields of a page's Undo form, as a POST body. */
  const undoOf = (body: string): string => {
    const form = /<form[^>]*>\s*<input type="hidden" name="undo" value="1" \/>([\s\S]*?)<button/.exec(body);
    assert.ok(form !== null, `an Undo form in ${body}`);
    const fields = [...(form[1] ?? '').matchAll(/name="([^"]+)" value="([^"]*)"/g)];
    return ['undo=1', ...fields.map((f) => `${f[1] ?? ''}=${encodeURIComponent(f[2] ?? '')}`)].join('&');
  };

  /** A page fetched: 200, in en-XA, no English word left; its body. */
  const visit = async (what: string, method: 'GET' | 'POST', url: string, payload?: string) => {
    const response = await request(method, url, payload);
    assert.equal(response.statusCode, 200, `${what}: ${response.body}`);
    assert.match(response.body, /<html lang="en-XA" dir="ltr">/, what);
    assert.deepEqual(englishWordsOf(response.body, CONTENT), [], `${what} leaves English words`);
    return response.body;
  };

  test('en-XA: each digest action’s preview, done and undo pages, and their variants, leave no English word', async () => {
    const { feedId, storyId, link } = await digestIn('en-XA');
    const keep = link({ kind: 'keep', itemId: storyId });
    await visit('keep: preview', 'GET', keep);
    const kept = await visit('keep: done', 'POST', keep, '');
    await visit('keep: waiting', 'GET', keep);
    await visit('keep: already', 'POST', keep, '');
    await visit('keep: undone', 'POST', keep, undoOf(kept));
    await visit('keep: nothing to undo', 'POST', keep, undoOf(kept));

    for (const kind of ['fewer', 'more'] as const) {
      const url = link({ kind, feedId });
      await visit(`${kind}: preview`, 'GET', url);
      const done = await visit(`${kind}: done`, 'POST', url, '');
      await visit(`${kind}: undone`, 'POST', url, undoOf(done));
    }
    // To none, then the fewest already; to all, then all already and nothing to change.
    const fewer = link({ kind: 'fewer', feedId });
    for (let i = 0; i < 4; i++) await request('POST', fewer, '');
    await visit('fewer: already the fewest', 'GET', fewer);
    await visit('fewer: nothing to change', 'POST', fewer, '');
    const more = link({ kind: 'more', feedId });
    for (let i = 0; i < 12; i++) await request('POST', more, '');
    await visit('more: already all', 'GET', more);

    const unmute = link({ kind: 'unmute', feedId });
    await visit('unmute: not muted', 'GET', unmute);
    await visit('unmute: nothing to change', 'POST', unmute, '');
    const mute = link({ kind: 'mute', feedId });
    await visit('mute: preview', 'GET', mute);
    const muted = await visit('mute: done', 'POST', mute, '');
    assert.match(muted, /<time datetime="2026-12-01T06:00:00.000Z">/);
    await visit('mute: preview while muted', 'GET', mute);
    await visit('fewer: preview while muted', 'GET', fewer);
    await visit('mute: undone', 'POST', mute, undoOf(muted));
    await request('POST', mute, '');
    await visit('unmute: preview', 'GET', unmute);
    const unmuted = await visit('unmute: done', 'POST', unmute, '');
    await visit('unmute: undone', 'POST', unmute, undoOf(unmuted));

    // An Undo the page did not offer: the error page's message is the account's.
    const refused = await request('POST', keep, 'undo=1&queued=x');
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.body.includes(escapeHtml(localeOf('en-XA').t('web.action.cannotUndo'))));
  });

  test('en-XA: "From your reading list"’s pages leave no English word', async () => {
    const { reading, readingLink } = await digestIn('en-XA');
    const archive = readingLink({ kind: 'archive', readingId: reading[0] ?? 0 });
    await visit('archive: preview', 'GET', archive);
    const archived = await visit('archive: done', 'POST', archive, '');
    await visit('archive: already', 'GET', archive);
    await visit('archive: nothing to change', 'POST', archive, '');
    await visit('archive: undone', 'POST', archive, undoOf(archived));
    const tomorrow = readingLink({ kind: 'tomorrow', readingId: reading[1] ?? 0 });
    await visit('tomorrow: preview', 'GET', tomorrow);
    const kept = await visit('tomorrow: done', 'POST', tomorrow, '');
    await visit('tomorrow: already', 'GET', tomorrow);
    await visit('tomorrow: nothing to change', 'POST', tomorrow, '');
    await visit('tomorrow: undone', 'POST', tomorrow, undoOf(kept));
    await visit('tomorrow: nothing to undo', 'POST', tomorrow, undoOf(kept));
    await request('POST', archive, '');
    await visit('tomorrow: archived', 'GET', tomorrow.replace(/reading=\d+/, `reading=${reading[0] ?? 0}`));
  });

  test('en-XA: the unsubscribe page in each state, and each change', async () => {
    const account = await newAccount(ctx.store());
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
    const token = await mintUnsubscribeToken(ctx.store().db, account.id, clock.now());
    assert.ok(token !== null);
    const path = `/unsubscribe/${token}`;
    await visit('unsubscribe: on', 'GET', path);
    await visit('unsubscribe: paused', 'POST', path, 'action=pause');
    await visit('unsubscribe: paused, shown again', 'GET', path);
    await visit('unsubscribe: off', 'POST', path, 'action=off');
    await visit('unsubscribe: resumed', 'POST', path, 'action=resume');
    const refused = await request('POST', path, 'action=explode');
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.body.includes(escapeHtml(localeOf('en-XA').t('web.unsubscribe.cannotDo'))));
  });

  test('an Arabic account’s action and unsubscribe pages run right to left, in Arabic, whatever the browser asks', async () => {
    const { feedId, link, account } = await digestIn('ar');
    const mute = await request('GET', link({ kind: 'mute', feedId }));
    assert.equal(mute.statusCode, 200);
    assert.match(mute.body, /<html lang="ar" dir="rtl">/);
    assert.match(mute.body, />اكتم لمدة أسبوع<\/button>/);
    assert.doesNotMatch(mute.body, /Mute for a week/);
    const token = await mintUnsubscribeToken(ctx.store().db, account.id, clock.now());
    const unsubscribe = await request('GET', `/unsubscribe/${token ?? ''}`);
    assert.match(unsubscribe.body, /<html lang="ar" dir="rtl">/);
    assert.match(unsubscribe.body, /إلغاء الاشتراك<\/button>/);
  });
});
