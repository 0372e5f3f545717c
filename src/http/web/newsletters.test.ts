import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { NOTICE_DAYS } from '../../accounts/newsletterSenders.js';
import { newsletterSenders } from '../../accounts/newsletters.js';
import { ingestMessage } from '../../newsletters/ingest.js';
import { subscriptionById } from '../../store/subscriptions.js';
import { TestClock } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount, silentLogger } from '../../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../../test/inbound.js';
import { letterFrom } from '../../test/newsletterSenders.js';
import { SmtpTestServer } from '../../test/smtpServer.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { COPY_SCRIPT_PATH } from './copyScript.js';

/** The Newsletters page (issue 34, points 1, 5 and 6). */
await describeEachEngine('web app: the Newsletters page', (ctx) => {
  let app: FastifyInstance;
  let smtp: SmtpTestServer;
  const clock = new TestClock('2026-11-06T09:00:00Z');

  before(async () => {
    smtp = await SmtpTestServer.start();
    app = webServer(ctx.store(), {
      now: clock.now,
      inbound: TEST_INBOUND,
      smtp: { smtpUrl: smtp.url(), mailFrom: 'Tidings <tidings@tidings.example>' },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.messages.length = 0;
  });

  const ingest = (raw: Buffer) =>
    ingestMessage(
      {
        store: ctx.store(),
        log: silentLogger,
        baseUrl: TEST_BASE_URL,
        inbound: TEST_INBOUND,
        queueLimit: 1000,
        now: clock.now,
      },
      raw,
      { recipients: [], via: 'http' },
    );

  /** A signed-in reader with its address, and one newsletter from "River Weekly" (a mailto unsubscribe). */
  async function reader() {
    const account = await newAccount(ctx.store());
    const address = await addressOfAccount(ctx.store(), account.id);
    const raw = letterFrom('"River Weekly" <river@lists.example>', {
      to: address,
      id: `w${account.id}`,
      subject: 'Please confirm',
      unsubscribe: '<mailto:leave@lists.example?subject=leave%20rivers>',
    });
    assert.equal((await ingest(raw)).outcome, 'stored');
    const [sender] = await newsletterSenders(ctx.store(), account.id, clock.now());
    assert.ok(sender?.id != null);
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    return { account: account.id, address, client, id: sender.id };
  }

  test('the address with a copy button, selectable without JS; in the nav; the page’s policy allows its script', async () => {
    const { client, address } = await reader();
    const page = await client.get('/newsletters');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`<code class="mono" id="newsletter-address">${address}</code>`));
    assert.match(
      page.body,
      /<button class="quiet" type="button" data-copy="newsletter-address" hidden>Copy<\/button>/,
    );
    assert.match(page.body, /<a href="\/newsletters"\s+aria-current="page"\s*>Newsletters<\/a/);
    assert.ok(page.body.includes(`<script src="${COPY_SCRIPT_PATH}" defer></script>`));
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*; script-src 'self'$/);
    const script = await client.get(COPY_SCRIPT_PATH);
    assert.equal(script.statusCode, 200);
    assert.match(script.body, /navigator\.clipboard\.writeText/);
    // Another page links to it too.
    assert.match((await client.get('/feeds')).body, /<a href="\/newsletters"\s*>Newsletters<\/a/);
  });

  test('rotating needs the box ticked and the form’s token; then the old address is refused', async () => {
    const { client, address } = await reader();
    await client.get('/newsletters');
    const unticked = await client.post('/newsletters/rotate');
    assert.equal(unticked.statusCode, 400);
    assert.match(unticked.body, /Tick the box/);
    const forged = await client.post('/newsletters/rotate', { _csrf: 'forged', confirm: 'yes' });
    assert.equal(forged.statusCode, 403);
    assert.ok((await client.get('/newsletters')).body.includes(address));
    const rotated = await client.post('/newsletters/rotate', { confirm: 'yes' });
    assert.equal(rotated.statusCode, 303);
    assert.equal(rotated.headers.location, '/newsletters?notice=rotated');
    const page = await client.get('/newsletters?notice=rotated');
    assert.match(page.body, /Mail to the old one is refused from now on/);
    assert.ok(!page.body.includes(address));
    const old = letterFrom('x@lists.example', { to: address, id: `old-${address.slice(0, 8)}` });
    assert.equal((await ingest(old)).outcome, 'no-such-recipient');
  });

  test('senders and the new-sender notice; dismissed, or gone after NOTICE_DAYS', async () => {
    const { client, account } = await reader();
    const page = await client.get('/newsletters');
    assert.match(page.body, /New sender — confirm if it asks you to/);
    assert.match(page.body, /<a href="\/items\/\d+" dir="auto">Please confirm<\/a>/);
    assert.match(page.body, /<span class="title" dir="auto">River Weekly<\/span>/);
    assert.match(page.body, /river@lists\.example/);
    assert.match(page.body, /1 message, the last/);
    assert.match(page.body, /Unsubscribe e-mails the sender’s unsubscribe address from Tidings\./);
    const noticeId = /action="\/newsletters\/notices\/(\d+)\/dismiss"/.exec(page.body)?.[1];
    assert.ok(noticeId !== undefined);
    const dismissed = await client.post(`/newsletters/notices/${noticeId}/dismiss`);
    assert.equal(dismissed.headers.location, '/newsletters?notice=dismissed');
    assert.doesNotMatch((await client.get('/newsletters')).body, /New sender — confirm/);

    // Another sender's first message: shown, until NOTICE_DAYS have passed.
    const to = await addressOfAccount(ctx.store(), account);
    await ingest(
      letterFrom('Tide Notes <tide@lists.example>', { to, id: `t${account}`, subject: 'Confirm tides' }),
    );
    assert.match((await client.get('/newsletters')).body, /Confirm tides/);
    clock.advance(NOTICE_DAYS * 24 * 3600 * 1000 + 60_000);
    const later = await client.get('/newsletters');
    assert.doesNotMatch(later.body, /New sender — confirm/);
    assert.match(later.body, /Tide Notes/, 'the sender stays listed');
  });

  test('the Feeds page’s share and unmute actions, sent back here', async () => {
    const { client, account, id } = await reader();
    const page = await client.get('/newsletters');
    assert.match(page.body, new RegExp(`<form class="stack" method="post" action="/feeds/${id}/share">`));
    const saved = await client.post(`/feeds/${id}/share`, {
      back: 'newsletters',
      per_digest: '1',
      priority: 'high',
    });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `/newsletters?notice=share#sender-${id}`);
    const sub = await subscriptionById(ctx.store().db, account, id);
    assert.deepEqual([sub?.per_digest, sub?.priority], [1, 'high']);
    const after = await client.get('/newsletters?notice=share');
    assert.match(after.body, /Each digest shows up to 1 of its entries\./);
    assert.match(after.body, /Priority high\./);
  });

  test('Unsubscribe mails the mailto through SMTP, says so, and mutes until unmuted', async () => {
    const { client, account, id } = await reader();
    await client.get('/newsletters');
    const done = await client.post(`/newsletters/${id}/unsubscribe`);
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Unsubscribed from <strong dir="auto">River Weekly<\/strong>/);
    assert.match(
      done.body,
      /Tidings e-mailed its unsubscribe address,\s*<span class="mono">leave@lists\.example<\/span>/,
    );
    assert.match(done.body, /Muted until you unmute it/);
    assert.equal(smtp.messages.length, 1);
    assert.deepEqual(smtp.messages[0]?.to, ['leave@lists.example']);
    assert.match(smtp.messages[0].raw.toString('utf8'), /^Subject: leave rivers\r$/m);
    assert.equal((await newsletterSenders(ctx.store(), account, clock.now()))[0]?.muted, true);
    const page = await client.get('/newsletters');
    assert.match(
      page.body,
      /You unsubscribed <time[^>]*>[^<]*<\/time>\s*by e-mail to its unsubscribe address\./,
    );
    const unmuted = await client.post(`/feeds/${id}/unmute`, { back: 'newsletters' });
    assert.equal(unmuted.headers.location, `/newsletters?notice=unmuted#sender-${id}`);
    assert.equal((await newsletterSenders(ctx.store(), account, clock.now()))[0]?.muted, false);
  });

  test('another account’s sender, or a feed that is no sender, is a 404; nothing is sent', async () => {
    const mine = await reader();
    const theirs = await reader();
    await mine.client.get('/newsletters');
    assert.equal((await mine.client.post(`/newsletters/${theirs.id}/unsubscribe`)).statusCode, 404);
    assert.equal((await mine.client.post('/newsletters/abc/unsubscribe')).statusCode, 404);
    assert.equal(smtp.messages.length, 0);
    assert.equal((await newsletterSenders(ctx.store(), theirs.account, clock.now()))[0]?.muted, false);
  });
});
