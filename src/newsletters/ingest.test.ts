import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import { searchAccount } from '../accounts/search.js';
import { buildDigestNow } from '../digest/build.js';
import { deliverDueDigests } from '../digest/deliver.js';
import { type Mailer, createMailer } from '../digest/mail.js';
import {
  TestClock,
  digestsOf,
  itemsOf,
  queueFeedItem,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { addressOfAccount, inboundServer, postMessage } from '../test/inbound.js';
import { buttondownLike, mailchimpLike, substackLike } from '../test/newsletterFixtures.js';
import { SmtpTestServer } from '../test/smtpServer.js';

/**
 * Newsletters by e-mail through the real pipeline on both engines: POST /inbound/email, the queue (the
 * seed API's GET), the digest built and e-mailed over SMTP (its Newsletters section, by sender, with the
 * share and "+N more from" of a feed), the reading view, search, and Tidings' own digest sent back in.
 */
await describeEachEngine('newsletters by e-mail, end to end', (ctx) => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-05T12:00:00Z');
  before(async () => {
    smtp = await SmtpTestServer.start();
    const m = createMailer({ smtpUrl: smtp.url(), mailFrom: 'Tidings <digest@tidings.example>' });
    assert.ok(m !== null);
    mailer = m;
    app = inboundServer(ctx.store(), { now: clock.now });
    await app.ready();
  });
  after(async () => {
    mailer.close();
    await smtp.close();
    await app.close();
  });

  test('stored, queued, grouped by sender under Newsletters, readable, searchable; our own digest refused', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'reader@example.org');
    const to = await addressOfAccount(store, account.id);
    assert.match(to, /^[a-z2-7]{32}@inbound\.example$/);

    const first = await postMessage(app, substackLike({ to }));
    assert.equal(first.statusCode, 202, first.body);
    assert.deepEqual(first.json(), { outcome: 'stored', accounts: 1 });
    // Five issues of one Mailchimp sender: its share (3 by default) shows, "+2 more from" counts the rest.
    for (let i = 1; i <= 5; i++) {
      const res = await postMessage(
        app,
        mailchimpLike({ to, subject: `Harbour news ${i}`, messageId: `harbour-${i}@mcsv.example` }),
      );
      assert.equal(res.statusCode, 202, res.body);
    }
    assert.equal(
      (await postMessage(app, buttondownLike({ cc: to, to: 'someone@else.example' }))).statusCode,
      202,
    );
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://feed.example/rss',
      feedTitle: 'A Feed',
      url: 'https://feed.example/1',
      title: 'A feed item',
      published: '2026-11-05T10:00:00.000Z',
    });

    // The seed API lists them as it lists feed items: a link that opens the newsletter, titled by its subject.
    const listed = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${account.apiKey}` });
    const queue = listed.json<{ url: string; title: string }[]>();
    const river = queue.find((i) => i.title === 'Why the river moved: a field report');
    assert.ok(river !== undefined, listed.body);
    assert.match(river.url, /^http:\/\/127\.0\.0\.1:8080\/items\/\d+$/);
    assert.equal(queue.length, 8);

    // Searchable before any digest (the queue) …
    const found = await searchAccount(store, account.id, 'Halden ferry');
    assert.equal(found.hits[0]?.title.map((s) => s.text).join(''), 'Why the river moved: a field report');

    const deps = testDigestDeps(store, { now: clock.now, mailer });
    assert.equal((await buildDigestNow(deps, account.id)).status, 'built');
    const [digest] = await digestsOf(store, account.id);
    assert.ok(digest !== undefined);
    const items = await itemsOf(store, digest.id);
    const letters = items.filter((i) => i.source === 'newsletter');
    assert.equal(letters.length, 7);
    assert.ok(letters.every((i) => i.section === 'newsletters'));
    const firstLetter = items.findIndex((i) => i.section === 'newsletters');
    assert.ok(
      items.slice(firstLetter).every((i) => i.section === 'newsletters'),
      'newsletters come last',
    );
    const harbour = letters.filter((i) => i.feed_title === 'Harbour Books');
    assert.deepEqual(
      harbour.map((i) => i.shown),
      [1, 1, 1, 0, 0],
      'the default share of a sender, newest first',
    );

    await deliverDueDigests(deps);
    const received = smtp.messages.at(-1);
    assert.ok(received !== undefined);
    const mail = await simpleParser(received.raw);
    const text = mail.text ?? '';
    const flat = text.replace(/\s+/g, ' ');
    const html = typeof mail.html === 'string' ? mail.html : '';
    assert.match(text, /\nNEWSLETTERS\n#{11}\n/);
    assert.ok(text.indexOf('A FEED') < text.indexOf('NEWSLETTERS'), 'feeds, then newsletters');
    assert.match(text, /\nTHE SLOW LETTER\n/);
    assert.match(text, /\+2 more from Harbour Books: https:\/\/tidings\.example\/digests\/\d+/);
    assert.match(text, /Fewer from this sender: /);
    assert.match(html, />Newsletters<\/h2>/);
    assert.match(html, /\+2 more from Harbour Books/);
    // The summary: its first real sentences, not the boilerplate nor the hidden preheader.
    assert.match(flat, /The river at Halden shifted forty metres east/);
    assert.doesNotMatch(flat, /View this post on the web|secret teaser/);
    assert.match(flat, /November is when the shop smells of paper/);

    // The entry opens the reading view (with the digest's token): the sanitised body, no script, no pixel.
    const link =
      /href="https:\/\/tidings\.example(\/items\/\d+\?token=[\w-]+)"[^>]*>Why the river moved/.exec(html);
    assert.ok(link?.[1] !== undefined, 'the entry links to its reading view');
    const page = await app.inject({ method: 'GET', url: link[1] });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /The river at Halden shifted forty metres east/);
    assert.doesNotMatch(page.body, /<script|javascript:|eotrx|utm_|fbclid|secret teaser/i);
    assert.match(page.body, /href="https:\/\/slowletter\.substack\.com\/subscribe"/);
    // A real image stays, shown through Tidings' media proxy (docs/privacy.md): its address is in the link.
    const proxied = /<img [^>]*src="[^"]*\/media\/[\w-]+\/([\w-]+)"/.exec(page.body)?.[1];
    assert.ok(proxied !== undefined, 'a real image stays, through the media proxy');
    assert.match(Buffer.from(proxied, 'base64url').toString(), /river\.jpg$/);
    assert.match(
      page.body,
      /<a href="https:\/\/slowletter\.substack\.com\/p\/why-the-river-moved" [^>]*>Open the original on The Slow Letter/,
      'the original is the sender’s web version',
    );

    // … and after the digest (its items).
    const later = await searchAccount(store, account.id, 'garlic');
    assert.equal(later.hits[0]?.kind, 'digest');

    // The digest e-mail, sent back to the address, is refused: Tidings never takes its own mail in.
    const loop = Buffer.from(received.raw.toString('latin1').replace(/^To: .*$/m, `To: ${to}`), 'latin1');
    const refused = await postMessage(app, loop);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json<{ code: number }>().code, 42201);
  });

  test('the same message twice, or to two of its addresses, is one entry; two accounts get one each', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    const toA = await addressOfAccount(store, a.id);
    const toB = await addressOfAccount(store, b.id);
    const once = await postMessage(app, substackLike({ to: toA, cc: toA.toUpperCase() }));
    assert.deepEqual(once.json(), { outcome: 'stored', accounts: 1 });
    const again = await postMessage(app, substackLike({ to: toA }));
    assert.equal(again.statusCode, 202);
    assert.deepEqual(again.json(), { outcome: 'duplicate', accounts: 1 });
    // Without a Message-ID, the same sender, subject and body are the same message.
    const bare = () => buttondownLike({ to: toA, messageId: null });
    assert.equal((await postMessage(app, bare())).json<{ outcome: string }>().outcome, 'stored');
    assert.equal((await postMessage(app, bare())).json<{ outcome: string }>().outcome, 'duplicate');
    const both = await postMessage(app, substackLike({ to: `${toA}, ${toB}` }));
    assert.deepEqual(both.json(), { outcome: 'stored', accounts: 2 }, 'new for b, a duplicate for a');
    const queueOf = async (key: string) =>
      (await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${key}` })).json<unknown[]>();
    assert.equal((await queueOf(a.apiKey)).length, 2);
    assert.equal((await queueOf(b.apiKey)).length, 1);
  });

  test('a rotated address is refused; a wrong secret is 401 before the body is read', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const old = await addressOfAccount(store, account.id);
    assert.equal(await addressOfAccount(store, account.id), old, 'the same address until rotated');
    const fresh = await addressOfAccount(store, account.id, true);
    assert.notEqual(fresh, old);
    const refused = await postMessage(app, substackLike({ to: old, messageId: 'rotated-1@x.example' }));
    assert.equal(refused.statusCode, 404, refused.body);
    assert.equal(refused.json<{ code: number }>().code, 40402);
    assert.equal((await postMessage(app, substackLike({ to: fresh }))).statusCode, 202);

    const wrong = await postMessage(app, substackLike({ to: fresh }), { secret: 'not-the-secret-at-all' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json<{ code: number }>().code, 40102);
    const none = await postMessage(app, substackLike({ to: fresh }), { secret: null });
    assert.equal(none.statusCode, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer');
  });
});
