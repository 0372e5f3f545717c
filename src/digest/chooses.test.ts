import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import { updateAccountSettings } from '../store/accounts.js';
import { chromiumSkipReason, launchBrowser } from '../test/browser.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { buildDigestNow } from './build.js';
import { ENTRY_BUDGET } from './choose/choose.js';
import { deliverDueDigests } from './deliver.js';
import { type Mailer, createMailer } from './mail.js';

/**
 * The digest that chooses, through the real pipeline on both engines: the queue filled as the API and the
 * feeds fill it, the build, the email over SMTP (its parts measured as received) and in Chromium.
 */

/** The HTML part's bytes as received: from its boundary to the next, encoded. */
function encodedHtmlPart(raw: string): number {
  const start = raw.search(/Content-Type: text\/html/i);
  assert.ok(start >= 0, 'an HTML part');
  const body = raw.indexOf('\r\n\r\n', start) + 4;
  const end = raw.indexOf('\r\n--', body);
  return Buffer.byteLength(raw.slice(body, end));
}

await describeEachEngine('the digest that chooses', (ctx) => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  let app: FastifyInstance;
  before(async () => {
    smtp = await SmtpTestServer.start();
    const m = createMailer({ smtpUrl: smtp.url(), mailFrom: 'Tidings <digest@tidings.example>' });
    assert.ok(m !== null);
    mailer = m;
    // The day of the tests' emails: their signed links are read when they are young, whatever today is.
    app = testServer(ctx.store(), { now: () => new Date('2026-11-24T08:00:00Z') });
    await app.ready();
  });
  after(async () => {
    mailer.close();
    await smtp.close();
    await app.close();
  });

  test('saved links first, every feed item taken, one entry per story, "+N more", a mail under 102 KB', async () => {
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'reader@example.org');
    const published = '2026-11-23T05:00:00.000Z';
    // A busy feed of 40 items, ten quieter feeds of 3, and one story two feeds carry.
    for (let i = 0; i < 40; i++) {
      await queueFeedItem(store, account.id, {
        feedUrl: 'https://busy.example/feed',
        feedTitle: 'Busy News',
        url: `https://busy.example/${i}`,
        title: `Busy headline ${i} ${'lorem '.repeat(i % 5)}`,
        summary: 'A summary that goes on for a while. '.repeat(10),
        published,
      });
    }
    for (let f = 0; f < 10; f++) {
      for (let i = 0; i < 3; i++) {
        await queueFeedItem(store, account.id, {
          feedUrl: `https://quiet${f}.example/feed`,
          feedTitle: `Quiet ${f}`,
          url: `https://quiet${f}.example/${i}`,
          title: `Quiet ${f} post ${i}`,
          published,
        });
      }
    }
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://quiet1.example/feed',
      feedTitle: 'Quiet 1',
      url: 'https://quiet1.example/volcano',
      title: 'Volcano erupts near Reykjavik airport overnight',
      published,
    });
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://quiet2.example/feed',
      feedTitle: 'Quiet 2',
      url: 'https://quiet2.example/volcano',
      title: 'Reykjavik airport closed as volcano erupts overnight',
      published,
    });
    // The reader's own link, which a feed also carries with ?ref=rss.
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://quiet3.example/feed',
      feedTitle: 'Quiet 3',
      url: 'https://mine.example/article?ref=rss',
      title: 'The feed’s title for my article',
      published,
    });
    await saveUrl(store, account.id, 'https://mine.example/article', 'My saved article');

    const outcome = await buildDigestNow(testDigestDeps(store, { now: clock.now, mailer }), account.id);
    assert.equal(outcome.status, 'built');
    const [digest] = await digestsOf(store, account.id);
    assert.ok(digest !== undefined);
    assert.equal(digest.item_count, 74, 'every item left the queue with the digest');
    const queue = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${account.apiKey}` });
    assert.deepEqual(queue.json(), [], 'nothing rolls forward');
    const items = await itemsOf(store, digest.id);
    assert.equal(items[0]?.title, 'My saved article');
    assert.equal(items.at(0)?.section, 'saved');
    const entries = items.filter((i) => i.shown === 1 && i.story_of === null);
    assert.equal(digest.shown_count, entries.length);
    assert.ok(entries.length <= ENTRY_BUDGET);
    assert.equal(
      entries.filter((i) => i.feed_id === items.find((x) => x.url.startsWith('https://busy'))?.feed_id)
        .length,
      3,
    );
    const top = items.filter((i) => i.section === 'top');
    assert.equal(top.length, 2, 'the volcano story, carried by two feeds, is a top story');

    await deliverDueDigests(testDigestDeps(store, { now: clock.now, mailer }));
    const received = smtp.messages.at(-1);
    assert.ok(received !== undefined);
    const raw = received.raw.toString('latin1');
    assert.ok(encodedHtmlPart(raw) < 102 * 1024);
    const mail = await simpleParser(received.raw);
    const text = mail.text ?? '';
    const lines = text.split('\n');
    assert.ok(
      lines.some((l) => l.startsWith('  Also in: Quiet 3 <https://mine.example/article?ref=rss>')),
      text,
    );
    assert.ok(
      lines.some((l) => l.startsWith('  Also in: Quiet 2 <https://quiet2.example/volcano>')),
      text,
    );
    assert.ok(
      lines.some((l) =>
        /^\+37 more from Busy News: https:\/\/tidings\.example\/digests\/\d+\?token=[\w-]+&action_token=[\w-]+#item-\d+$/.test(
          l,
        ),
      ),
      text,
    );
    for (const entry of entries) {
      assert.ok(text.includes(entry.url), `the text part gives ${entry.url}`);
    }
    assert.match(text, /\d+ entries · about \d+ minutes? to read/);
    assert.match(mail.html || '', /Top stories/i);

    // The email's actions: keep an item, fewer or more from a feed, mute it; its web link carries them on.
    assert.match(
      text,
      /Keep for tomorrow: https:\/\/tidings\.example\/digest-actions\/[\w-]{43}\?do=keep&item=\d+/,
    );
    assert.match(
      text,
      /Mute for a week: https:\/\/tidings\.example\/digest-actions\/[\w-]{43}\?do=mute&feed=\d+/,
    );
    const web =
      /Read on the web: https:\/\/tidings\.example(\/digests\/\d+\?token=[\w-]+&action_token=[\w-]+)/.exec(
        text,
      );
    assert.ok(web?.[1] !== undefined, text);
    const page = await app.inject({ method: 'GET', url: web[1] });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Keep for tomorrow/);
    assert.match(page.body, /Fewer from this feed/);
    const bare = await app.inject({ method: 'GET', url: web[1].replace(/&action_token=[\w-]+/, '') });
    assert.equal(bare.statusCode, 200);
    assert.doesNotMatch(bare.body, /Keep for tomorrow/, 'without the email’s token, no actions');
    const forged = await app.inject({
      method: 'GET',
      url: web[1].replace(/action_token=[\w-]+/, `action_token=${'A'.repeat(43)}`),
    });
    assert.doesNotMatch(forged.body, /Keep for tomorrow/);
  });

  test('an email of hundreds of saved links is cut by its size, not clipped, and says where the rest is', async () => {
    const clock = new TestClock('2026-11-24T07:00:00Z');
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'many@example.org');
    await store.db
      .transaction()
      .execute((trx) => updateAccountSettings(trx, account.id, { digestMaxItems: 400 }));
    for (let i = 0; i < 400; i++) {
      await saveUrl(
        store,
        account.id,
        `https://saved.example/${i}/${'segment/'.repeat(20)}`,
        `Saved link number ${i} with a long title ${'word '.repeat(20)}`,
      );
    }
    assert.equal(
      (await buildDigestNow(testDigestDeps(store, { now: clock.now, mailer }), account.id)).status,
      'built',
    );
    smtp.messages.length = 0;
    await deliverDueDigests(testDigestDeps(store, { now: clock.now, mailer }));
    const received = smtp.messages.at(-1);
    assert.ok(received !== undefined);
    const size = encodedHtmlPart(received.raw.toString('latin1'));
    assert.ok(size < 102 * 1024 && size > 80 * 1024, `${size} bytes: cut close to the limit, not far below`);
    const mail = await simpleParser(received.raw);
    assert.match(mail.text ?? '', /…and \d+ more entries, cut to keep this email whole/);
  });

  test(
    'the email reads on a phone (390 px) and a desktop without sideways scrolling',
    { skip: chromiumSkipReason() },
    async () => {
      const received = smtp.messages.at(-1);
      assert.ok(received !== undefined);
      const mail = await simpleParser(received.raw);
      const browser = await launchBrowser();
      try {
        for (const width of [390, 1280]) {
          const page = await browser.context.newPage();
          await page.setViewportSize({ width, height: 800 });
          await page.setContent(mail.html || '');
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          assert.equal(overflow, 0, `no sideways scroll at ${width} px: ${overflow}`);
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
  );
});
