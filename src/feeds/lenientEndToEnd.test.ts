/**
 * Issue 15 end to end, on both engines: a feed that is not well-formed XML (`&nbsp;` and `&rsquo;` in its
 * titles, a bare `&` in a link, its last tag cut short) is followed on the web's Feeds page, which shows
 * it was read leniently, polled for a new item, and that item is delivered in the next digest email with
 * its title read as the publisher meant it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDigestNow } from '../digest/build.js';
import { deliverDueDigests } from '../digest/deliver.js';
import { LENIENT_NOTE } from '../http/web/pages/feedRow.js';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { RecordingMailer, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { feedRow, refreshNow, testRefreshDeps, useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { WebClient, webServer } from '../test/webClient.js';
import { escapeHtml } from '../lib/escape.js';

const item = (slug: string, title: string, hoursAgo: number): string =>
  `<item><title>${title}</title><link>https://broken.example/${slug}?a=1&b=2</link>` +
  `<pubDate>${new Date(Date.now() - hoursAgo * 3_600_000).toUTCString()}</pubDate></item>`;

/** What a careless CMS prints: HTML entities XML does not define, bare ampersands, a truncated end. */
const brokenFeed = (items: string[]): string =>
  `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>` +
  `<title>Caf&eacute;&nbsp;Notes</title><link>https://broken.example/</link>${items.join('')}</channel></rss`;

await describeEachEngine('a feed that is not well-formed XML, end to end', (ctx) => {
  const items = [item('first', 'Opening&nbsp;day', 2)];
  const server = useFeedServer('127.0.0.1', (s) => {
    s.route('/broken.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' }).end(brokenFeed(items));
    });
  });
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;
  const mailer = new RecordingMailer();

  before(async () => {
    app = webServer(ctx.store(), { allowPrivateNetworks: true });
    await app.ready();
    account = await newAccount(ctx.store());
    await setEmail(ctx.store(), account.id, 'reader@example.com');
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('it is followed on the Feeds page, which says it was read leniently', async () => {
    await client.get('/feeds');
    const res = await client.post('/feeds', { url: server().url('/broken.xml') });
    assert.equal(res.statusCode, 303, res.body);
    const [sub, ...others] = await subscriptionsByAccount(ctx.store().db, account.id);
    assert.ok(sub !== undefined && others.length === 0);
    // Titles are plain text, their whitespace (a no-break space included) folded.
    assert.equal(sub.title, 'Café Notes');
    assert.equal(sub.lastError, null);
    assert.equal(sub.readLeniently, true, 'its first fetch records how it was read');
    const row = await feedRow(ctx.store(), sub.feedId);
    assert.equal(row.read_leniently, 1);
    assert.equal(row.last_error, null);
    const page = await client.get('/feeds');
    assert.ok(page.body.includes(escapeHtml(LENIENT_NOTE())), 'the Feeds page shows it');
  });

  test('a new item is polled and delivered in the digest with its title as meant', async () => {
    const [sub] = await subscriptionsByAccount(ctx.store().db, account.id);
    assert.ok(sub !== undefined);
    items.unshift(item('second', 'Don&rsquo;t&nbsp;miss &amp; more', 1));
    const outcome = await refreshNow(testRefreshDeps(ctx.store()), sub.feedId);
    assert.deepEqual(outcome, { status: 'updated', newItems: 1, queued: 1 });

    const deps = testDigestDeps(ctx.store(), { mailer });
    assert.equal((await buildDigestNow(deps, account.id)).status, 'built');
    const delivered = await deliverDueDigests(deps, { accountId: account.id });
    assert.deepEqual(
      delivered.map((d) => d.status),
      ['sent'],
    );
    const message = mailer.sent.at(-1);
    assert.ok(message !== undefined);
    assert.ok(message.text.includes('Don’t miss & more'), message.text);
    assert.ok(message.text.includes('https://broken.example/second?a=1&b=2'), 'the link as published');
    assert.ok(message.text.includes('Opening day'), 'the backfilled item too');
    assert.ok(!/&nbsp;|&rsquo;/.test(message.text), 'no entity left as text');
    assert.ok(!/&amp;(nbsp|rsquo);/.test(message.html), 'nor escaped as text in the HTML part');
    assert.equal((await feedRow(ctx.store(), sub.feedId)).read_leniently, 1);
  });
});
