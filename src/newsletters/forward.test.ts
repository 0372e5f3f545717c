import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Mailer, createMailer } from '../digest/mail.js';
import { LOOP_HEADER } from '../lib/mailLoop.js';
import { setEmail } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { letterFrom } from '../test/newsletterSenders.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { FORWARD_LEASE_MS, FORWARD_WINDOW_MS, type ForwardDeps, forwardConfirmations } from './forward.js';
import { ingestMessage } from './ingest.js';

/** A sender's first message is forwarded at once to the account's e-mail (issue 34, point 5). */
await describeEachEngine('forwarding first messages', (ctx) => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  before(async () => {
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
  });

  let clock = new Date('2026-11-06T09:00:00.000Z');
  const now = () => clock;
  const forward = (): ForwardDeps => ({
    store: ctx.store(),
    log: silentLogger,
    mailer,
    mailFrom: 'Tidings <tidings@tidings.example>',
    baseUrl: TEST_BASE_URL,
    now,
  });
  const ingest = (raw: Buffer) =>
    ingestMessage(
      {
        store: ctx.store(),
        log: silentLogger,
        baseUrl: TEST_BASE_URL,
        inbound: TEST_INBOUND,
        queueLimit: 1000,
        now,
      },
      raw,
      { recipients: [], via: 'http' },
    );
  const sentTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

  test('the first message is forwarded once, with the loop header; later ones wait for the digest', async () => {
    const account = await newAccount(ctx.store());
    const email = `reader${account.id}@example.org`;
    await setEmail(ctx.store(), account.id, email);
    const to = await addressOfAccount(ctx.store(), account.id);
    const from = '"River Weekly" <river@lists.example>';
    assert.equal(
      (await ingest(letterFrom(from, { to, id: `f1-${account.id}`, subject: 'Confirm' }))).outcome,
      'stored',
    );
    assert.ok((await forwardConfirmations(forward())) >= 1);
    const [mail, ...more] = sentTo(email);
    assert.equal(more.length, 0);
    const raw = mail?.raw.toString('utf8') ?? '';
    assert.match(raw, /^Subject: New sender: Confirm\r$/m);
    assert.match(raw, new RegExp(`^${LOOP_HEADER}: sent-by-tidings`, 'mi'));
    assert.match(raw, /lists\.example\/confirm\/f1-/, 'the confirmation link is kept');
    assert.match(raw, /River Weekly/);
    // Sent back to the inbound address, it is not taken in.
    assert.equal((await ingest(Buffer.from(raw.replace(/^To: .*$/m, `To: ${to}`)))).outcome, 'our-own-mail');

    assert.equal((await ingest(letterFrom(from, { to, id: `f2-${account.id}` }))).outcome, 'stored');
    await forwardConfirmations(forward());
    assert.equal(sentTo(email).length, 1, 'a later message is not forwarded, the first not again');
  });

  test('no e-mail: nothing; a failed send is tried again after its lease; a day late: not at all', async () => {
    const quiet = await newAccount(ctx.store());
    const quietTo = await addressOfAccount(ctx.store(), quiet.id);
    await ingest(letterFrom('a@lists.example', { to: quietTo, id: `q-${quiet.id}` }));

    const account = await newAccount(ctx.store());
    const email = `retry${account.id}@example.org`;
    await setEmail(ctx.store(), account.id, email);
    const to = await addressOfAccount(ctx.store(), account.id);
    await ingest(letterFrom('b@lists.example', { to, id: `r-${account.id}` }));
    smtp.fail({ step: 'DATA', action: 'reply', code: 451, message: 'try later' });
    await forwardConfirmations(forward());
    smtp.fail();
    assert.equal(sentTo(email).length, 0);
    await forwardConfirmations(forward());
    assert.equal(sentTo(email).length, 0, 'held by its lease');
    clock = new Date(clock.getTime() + FORWARD_LEASE_MS + 1000);
    await forwardConfirmations(forward());
    assert.equal(sentTo(email).length, 1);

    const late = await newAccount(ctx.store());
    const lateEmail = `late${late.id}@example.org`;
    await setEmail(ctx.store(), late.id, lateEmail);
    await ingest(
      letterFrom('c@lists.example', { to: await addressOfAccount(ctx.store(), late.id), id: `l-${late.id}` }),
    );
    clock = new Date(clock.getTime() + FORWARD_WINDOW_MS + 1000);
    await forwardConfirmations(forward());
    assert.equal(sentTo(lateEmail).length, 0);
    assert.equal(
      smtp.messages.filter((m) => m.to.some((t) => t.includes('@example.org') && t.startsWith('test')))
        .length,
      0,
    );
  });
});
