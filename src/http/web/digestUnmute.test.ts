import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDigestNow } from '../../digest/build.js';
import { deliverDueDigests } from '../../digest/deliver.js';
import { updateAccountSettings } from '../../store/accounts.js';
import { subscriptionOfFeed } from '../../store/subscriptions.js';
import {
  RecordingMailer,
  TestClock,
  digestsOf,
  queueFeedItem,
  setEmail,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/*
 * Issue 33, point 8: a mute speaks in the account's zone, and can be undone from the e-mail. A feed muted
 * from a digest's link says until when in the zone the e-mail's times are in (not UTC), on its page and on
 * the Feeds page ("Muted until Saturday 5 December 2026, 10:22 (Europe/Berlin), in 6 days", never "Muted
 * until in 6 days"); the next e-mail offers that feed's group Unmute instead of "Mute for a week", a link
 * whose GET changes nothing and whose POST ends the mute, with an Undo that mutes it again until the same
 * time. Through the real pipeline on both engines: the build, the e-mail as sent, the pages as served.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';
const ZONE = 'Europe/Berlin';

await describeEachEngine('a mute in the account’s zone, undone from the e-mail', (ctx) => {
  let app: FastifyInstance;
  // Saturday 28 November 2026, 09:22 UTC: a week later is Saturday 5 December, 10:22 in Berlin.
  const clock = new TestClock('2026-11-28T09:22:00Z');
  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());

  const bare = (method: 'GET' | 'POST', url: string, payload?: string) =>
    app.inject({
      method,
      url: url.startsWith(BASE) ? url.slice(BASE.length) : url,
      headers: {
        accept: 'text/html',
        ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });

  /** The e-mail text's link on the line that starts with `label` (its first). */
  const linkOn = (text: string, label: string): string => {
    const line = text.split('\n').find((l) => l.trimStart().startsWith(label));
    const url = line === undefined ? undefined : /(https:\/\/\S+)$/.exec(line)?.[1];
    assert.ok(url !== undefined, `a line "${label} …"`);
    return url;
  };

  /** The lines of one feed's group in an e-mail's text part: from its heading to the next heading. */
  const groupLines = (text: string, title: string): string[] => {
    const lines = text.split('\n');
    const start = lines.indexOf(title.toUpperCase());
    assert.ok(start >= 0, `a group ${title}`);
    const end = lines.findIndex((l, i) => i > start + 1 && /^=+$/.test(lines[i + 1] ?? ''));
    return lines.slice(start, end === -1 ? undefined : end);
  };

  const mutedUntil = async (accountId: number, feedId: number) =>
    (await subscriptionOfFeed(ctx.store().db, accountId, feedId))?.muted_until ?? null;

  test('muted from the e-mail in Berlin: the pages say Berlin’s time; the next e-mail offers Unmute', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const n = account.id;
    await setEmail(store, n, `berlin${n}@example.org`);
    await store.db.transaction().execute((trx) => updateAccountSettings(trx, n, { timezone: ZONE }));
    const mailer = new RecordingMailer();
    const deps = testDigestDeps(store, { now: clock.now, mailer });
    const fill = async (day: number) => {
      const published = clock.now().toISOString();
      const news = await queueFeedItem(store, n, {
        feedUrl: `https://news${n}.example/feed.xml`,
        feedTitle: 'Daily News',
        url: `https://news${n}.example/${day}`,
        title: `News of day ${day}`,
        published,
      });
      const blog = await queueFeedItem(store, n, {
        feedUrl: `https://blog${n}.example/feed.xml`,
        feedTitle: 'A Blog',
        url: `https://blog${n}.example/${day}`,
        title: `Post of day ${day}`,
        published,
      });
      return { news, blog };
    };
    const { news, blog } = await fill(1);
    assert.equal((await buildDigestNow(deps, n)).status, 'built');
    await deliverDueDigests(deps, { accountId: n });
    const first = mailer.sent.at(-1);
    assert.ok(first !== undefined);
    assert.match(first.text, /Times are in Europe\/Berlin/);

    // Mute "Daily News" from the e-mail: its page speaks in Berlin's time, as the e-mail does.
    const mute = linkOn(groupLines(first.text, 'Daily News').join('\n'), 'Mute for a week:');
    const preview = await bare('GET', mute);
    assert.equal(preview.statusCode, 200);
    assert.match(
      preview.body,
      /until <time datetime="2026-12-05T09:22:00.000Z">Saturday 5 December 2026, 10:22<\/time> \(Europe\/Berlin\)/,
    );
    assert.doesNotMatch(preview.body, /UTC/);
    assert.equal(await mutedUntil(n, news), null, 'GET changes nothing');
    const muted = await bare('POST', mute, '');
    assert.equal(muted.statusCode, 200);
    assert.match(
      muted.body,
      /is muted until\s*<time datetime="2026-12-05T09:22:00.000Z">Saturday 5 December 2026, 10:22<\/time> \(Europe\/Berlin\)/,
    );
    assert.doesNotMatch(muted.body, /UTC/);
    const until = '2026-12-05T09:22:00.000Z';
    assert.equal(await mutedUntil(n, news), until);

    // The Feeds page: when, in the zone, then how long from now; never "Muted until in 6 days".
    clock.advance(DAY);
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const feeds = (await client.get('/feeds')).body;
    assert.match(
      feeds,
      /Muted until\s*<time datetime="2026-12-05T09:22:00.000Z"[^>]*>Saturday 5 December 2026, 10:22<\/time>\s*\(Europe\/Berlin\),\s*in 6 days:/,
    );
    assert.doesNotMatch(feeds, /Muted until\s*<time[^>]*>in /);

    // The next e-mail: the muted feed's group offers Unmute (with until when), never Mute again.
    await fill(2);
    assert.equal((await buildDigestNow(deps, n)).status, 'built');
    await deliverDueDigests(deps, { accountId: n });
    const second = mailer.sent.at(-1);
    assert.ok(second !== undefined && second !== first);
    const newsGroup = groupLines(second.text, 'Daily News');
    assert.ok(!newsGroup.some((l) => l.includes('Mute for a week')), newsGroup.join('\n'));
    const unmute = linkOn(newsGroup.join('\n'), 'Unmute (muted until Sat 5 Dec, 10:22):');
    assert.match(unmute, new RegExp(`/digest-actions/[A-Za-z0-9_-]{43}\\?do=unmute&feed=${news}$`));
    assert.ok(groupLines(second.text, 'A Blog').some((l) => l.startsWith('  Mute for a week: ')));
    assert.match(second.html, /">Unmute<\/a> \(muted until Sat 5 Dec, 10:22\)/);
    assert.equal((second.html.match(/>Mute for a week</g) ?? []).length, 1, 'only the blog’s');
    // The digest's web page opened from the e-mail offers the same.
    const [, digest] = await digestsOf(store, n);
    assert.ok(digest !== undefined);
    const web = linkOn(second.text, 'Read on the web:');
    const page = await bare('GET', web);
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(`do=unmute&amp;feed=${news}`), 'the page offers Unmute too');

    // Unmute: GET says what it will do and changes nothing; POST ends the mute, with an Undo.
    const asked = await bare('GET', unmute);
    assert.equal(asked.statusCode, 200);
    assert.match(
      asked.body,
      /It is muted until <time[^>]*>Saturday 5 December 2026, 10:22<\/time> \(Europe\/Berlin\)/,
    );
    assert.match(asked.body, />Unmute<\/button>/);
    assert.equal(await mutedUntil(n, news), until, 'GET changes nothing');
    const done = await bare('POST', unmute, '');
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Done: “<span dir="auto">Daily News<\/span>” is no longer muted/);
    assert.equal(await mutedUntil(n, news), null);
    assert.equal(await mutedUntil(n, blog), null, 'the other feed is left alone');
    assert.match(done.body, new RegExp(`name="until" value="${until}"`));
    // Again: nothing to change, nothing to undo.
    const again = await bare('POST', unmute, '');
    assert.match(again.body, /Nothing to change: “<span dir="auto">Daily News<\/span>” is not muted/);
    assert.doesNotMatch(again.body, /Undo/);

    // Undo mutes it again until the same time; a forged time (past a week, malformed) is not taken.
    const far = new Date(clock.now().getTime() + 30 * DAY).toISOString();
    assert.match((await bare('POST', unmute, `undo=1&until=${far}`)).body, /Nothing to undo/);
    assert.equal(await mutedUntil(n, news), null);
    assert.equal((await bare('POST', unmute, 'undo=1&until=soon')).statusCode, 400);
    const undone = await bare('POST', unmute, `undo=1&until=${until}`);
    assert.match(undone.body, /Undone\./);
    assert.equal(await mutedUntil(n, news), until);
  });
});
