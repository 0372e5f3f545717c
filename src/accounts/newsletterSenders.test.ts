import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Mailer, createMailer } from '../digest/mail.js';
import { isTidingsError } from '../errors.js';
import { LOOP_HEADER } from '../lib/mailLoop.js';
import { ingestMessage } from '../newsletters/ingest.js';
import { ONE_CLICK_BODY, parseMailto } from '../newsletters/leave.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { type UnsubscribeServer, letterFrom, startUnsubscribeServer } from '../test/newsletterSenders.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { type UnsubscribeSenderDeps, newslettersView, unsubscribeSender } from './newsletterSenders.js';
import { newsletterSenders } from './newsletters.js';

test('a mailto URI keeps its address, subject and body; anything else is refused', () => {
  assert.deepEqual(parseMailto('mailto:leave@lists.example?subject=Unsubscribe%20me&body=List%3A%20rivers'), {
    to: 'leave@lists.example',
    subject: 'Unsubscribe me',
    body: 'List: rivers',
  });
  assert.deepEqual(parseMailto('MAILTO:a%40b.example'), {
    to: 'a@b.example',
    subject: 'unsubscribe',
    body: '',
  });
  assert.equal(
    parseMailto('mailto:?to=x@y.example&subject=a%0D%0ABcc:%20z@z.example')?.subject,
    'a Bcc: z@z.example',
  );
  assert.equal(parseMailto('mailto:not-an-address'), null);
  assert.equal(parseMailto('https://lists.example/u'), null);
  assert.deepEqual(parseMailto('mailto:a@b.example?subject=%E0%A4%A'), parseMailto('mailto:a@b.example'));
});

/** Unsubscribing from a sender (issue 34, point 6): one-click, mailto, the link, none; muted each time. */
await describeEachEngine('unsubscribing from a newsletter sender', (ctx) => {
  let https: UnsubscribeServer;
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  before(async () => {
    https = await startUnsubscribeServer();
    smtp = await SmtpTestServer.start();
    const m = createMailer(
      { smtpUrl: smtp.url(), mailFrom: 'Tidings <tidings@tidings.example>' },
      { timeouts: { connectMs: 5000, greetingMs: 5000, socketMs: 5000 } },
    );
    assert.ok(m !== null);
    mailer = m;
  });
  after(async () => {
    mailer.close();
    await smtp.close();
    await https.close();
  });

  const now = new Date('2026-11-06T09:00:00.000Z');
  const deps = (over: Partial<UnsubscribeSenderDeps> = {}): UnsubscribeSenderDeps => ({
    store: ctx.store(),
    now: () => now,
    policy: { allowPrivate: true },
    ca: https.ca,
    mailer,
    mailFrom: 'Tidings <tidings@tidings.example>',
    ...over,
  });

  /** An account with one newsletter from a sender with these headers; the sender's id as `list` prints. */
  async function senderWith(headers: { unsubscribe?: string; post?: string }) {
    const account = await newAccount(ctx.store());
    const to = await addressOfAccount(ctx.store(), account.id);
    const raw = letterFrom('"River Weekly" <river@lists.example>', { to, id: `r${account.id}`, ...headers });
    const inbound = { store: ctx.store(), log: silentLogger, baseUrl: TEST_BASE_URL, inbound: TEST_INBOUND };
    const stored = await ingestMessage({ ...inbound, queueLimit: 1000 }, raw, {
      recipients: [],
      via: 'http',
    });
    assert.equal(stored.outcome, 'stored');
    const [sender] = await newsletterSenders(ctx.store(), account.id, now);
    assert.ok(sender?.id != null);
    return { account: account.id, id: sender.id };
  }

  const mutedNow = async (account: Awaited<ReturnType<typeof senderWith>>['account']) =>
    (await newsletterSenders(ctx.store(), account, now))[0]?.muted;

  test('one-click: an RFC 8058 POST to the https link, no cookie or credentials; then muted', async () => {
    const s = await senderWith({
      unsubscribe: `<mailto:leave@lists.example>, <${https.origin}/u/abc?list=rivers>`,
      post: 'List-Unsubscribe=One-Click',
    });
    assert.equal((await newsletterSenders(ctx.store(), s.account, now))[0]?.unsubscribe, 'one-click');
    const before = https.requests.length;
    const done = await unsubscribeSender(deps(), s.account, s.id);
    assert.equal(done.how, 'one-click');
    assert.deepEqual(done.failed, []);
    assert.equal(https.requests.length, before + 1);
    const req = https.requests.at(-1);
    assert.deepEqual(
      [req?.method, req?.path, req?.contentType, req?.body, req?.cookie, req?.authorization],
      [
        'POST',
        '/u/abc?list=rivers',
        'application/x-www-form-urlencoded',
        ONE_CLICK_BODY,
        undefined,
        undefined,
      ],
    );
    assert.equal(await mutedNow(s.account), true);
    const view = await newslettersView(ctx.store(), s.account, { domain: TEST_INBOUND.domain, now });
    assert.equal(view.senders[0]?.unsubscribedHow, 'one-click');
    assert.equal(view.senders[0].unsubscribedAt, now.toISOString());
    // `newsletters list --json`'s fields, exactly.
    assert.deepEqual(Object.keys((await newsletterSenders(ctx.store(), s.account, now))[0] ?? {}), [
      'id',
      'name',
      'address',
      'messages',
      'lastAt',
      'unsubscribe',
      'muted',
    ]);
  });

  test('a one-click POST to a private address is refused unless allowed: the mailto is sent instead', async () => {
    const s = await senderWith({
      unsubscribe: `<${https.origin}/u/private>, <mailto:leave@lists.example?subject=leave%20rivers&body=please%20remove%20me>`,
      post: 'List-Unsubscribe=One-Click',
    });
    const before = https.requests.length;
    smtp.messages.length = 0;
    const done = await unsubscribeSender(deps({ policy: { allowPrivate: false } }), s.account, s.id);
    assert.equal(https.requests.length, before, 'nothing reached the private address');
    assert.equal(done.how, 'mailto');
    assert.equal(done.target, 'leave@lists.example');
    assert.match(done.failed.join(' '), /one-click unsubscribe failed/);
    const mail = smtp.messages.at(-1);
    assert.deepEqual(mail?.to, ['leave@lists.example']);
    const raw = mail.raw.toString('utf8');
    assert.match(raw, /^Subject: leave rivers\r$/m);
    assert.match(raw, /please remove me/);
    assert.match(raw, new RegExp(`^${LOOP_HEADER}: `, 'mi'));
    assert.equal(await mutedNow(s.account), true);
  });

  test('mailto without SMTP: the link is handed over; no header at all: none; muted either way', async () => {
    const linked = await senderWith({
      unsubscribe: '<mailto:leave@lists.example>, <http://lists.example/u/1>',
    });
    const handed = await unsubscribeSender(deps({ mailer: null }), linked.account, linked.id);
    assert.deepEqual([handed.how, handed.target], ['link', 'http://lists.example/u/1']);
    assert.match(handed.failed.join(' '), /no SMTP server/);
    assert.equal(await mutedNow(linked.account), true);

    const bare = await senderWith({});
    const none = await unsubscribeSender(deps(), bare.account, bare.id);
    assert.deepEqual([none.how, none.target], ['none', null]);
    assert.equal(await mutedNow(bare.account), true);
    const view = await newslettersView(ctx.store(), bare.account, { domain: TEST_INBOUND.domain, now });
    assert.equal(view.senders[0]?.unsubscribedHow, null);
  });

  test('another account’s sender, or no sender, is not_found', async () => {
    const s = await senderWith({ unsubscribe: '<mailto:leave@lists.example>' });
    const other = await newAccount(ctx.store());
    for (const [account, id] of [
      [other.id, s.id],
      [s.account, 999_999],
    ] as const) {
      await assert.rejects(unsubscribeSender(deps(), account, id), (err) => isTidingsError(err, 'not_found'));
    }
    assert.equal(await mutedNow(s.account), false);
  });
});
