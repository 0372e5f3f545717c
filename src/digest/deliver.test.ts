import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { claimDueDeliveries, digestById } from '../store/digests.js';
import type { Store } from '../store/db.js';
import { TestClock, digestsOf, saveUrl, setDueAt, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { buildDueDigests } from './build.js';
import { RETRY_WINDOW_MS, deliverDueDigests } from './deliver.js';
import type { DigestDeps } from './deps.js';
import { type Mailer, createMailer } from './mail.js';
import { runDigestPass } from './worker.js';

/**
 * Delivery over a real SMTP conversation (an in-process smtp-server): sent once, retried after 4xx and
 * dropped connections, given up after 5xx or 24 hours, and resumed — never rebuilt — after a crash between
 * build and send or in the middle of a send.
 */

const MINUTE = 60_000;

await describeEachEngine('digest delivery', (ctx) => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  before(async () => {
    smtp = await SmtpTestServer.start();
    const m = createMailer(
      { smtpUrl: smtp.url(), mailFrom: 'Tidings <digest@tidings.example>' },
      { timeouts: { connectMs: 2000, greetingMs: 2000, socketMs: 2000 } },
    );
    assert.ok(m !== null);
    mailer = m;
  });
  after(async () => {
    mailer.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.fail();
    smtp.messages.length = 0;
  });

  /** "A process": deps with the real mailer, on a clock. */
  const process = (clock: TestClock, store: Store = ctx.store()): DigestDeps =>
    testDigestDeps(store, { now: clock.now, mailer });

  /** An account with an address and two saved links, its digest due at 07:00 UTC on 23 November. */
  async function emailedAccount(): Promise<number> {
    const { id } = await newAccount(ctx.store());
    await setEmail(ctx.store(), id, `reader${id}@example.org`);
    await setDueAt(ctx.store(), id, '2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), id, 'https://deliver.example/a', 'First <b>link</b>');
    await saveUrl(ctx.store(), id, 'https://deliver.example/b');
    return id;
  }

  const only = async (accountId: number) => {
    const digests = await digestsOf(ctx.store(), accountId);
    assert.equal(digests.length, 1);
    const [digest] = digests;
    assert.ok(digest !== undefined);
    return digest;
  };

  test('a built digest is emailed once: multipart, its stored Message-ID, then sent', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    const pass = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(
      pass.deliveries.map((d) => d.status),
      ['sent'],
    );
    const digest = await only(id);
    assert.deepEqual(
      [digest.delivery, digest.attempts, digest.sent_at, digest.last_error],
      ['sent', 1, '2026-11-23T07:00:10.000Z', null],
    );
    assert.equal(smtp.messages.length, 1);
    const received = smtp.messages[0];
    assert.ok(received !== undefined);
    assert.deepEqual(received.to, [`reader${id}@example.org`]);
    const parsed = await simpleParser(received.raw);
    assert.equal(parsed.messageId, digest.message_id);
    assert.match(parsed.subject ?? '', /2 new links/);
    assert.match(parsed.text ?? '', /https:\/\/deliver\.example\/a/);
    assert.ok(typeof parsed.html === 'string' && parsed.html.includes('First &lt;b&gt;link&lt;/b&gt;'));

    clock.advance(MINUTE);
    const again = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(again, { builds: [], deliveries: [], ereader: [] });
    assert.equal(smtp.messages.length, 1, 'never twice');
  });

  test('a crash between build and send: the next process sends it, and builds nothing', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    // The first process builds, then dies before its delivery step.
    const built = await buildDueDigests(process(clock), { accountId: id });
    assert.deepEqual(
      built.map((b) => b.status),
      ['built'],
    );
    assert.equal((await only(id)).delivery, 'pending');

    clock.set('2026-11-23T09:30:00Z');
    await saveUrl(ctx.store(), id, 'https://deliver.example/after-the-crash');
    const restarted = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(restarted.builds, [], 'not rebuilt');
    assert.deepEqual(
      restarted.deliveries.map((d) => d.status),
      ['sent'],
    );
    const digest = await only(id);
    assert.equal(digest.item_count, 2);
    assert.equal(digest.delivery, 'sent');
    assert.equal(smtp.messages.length, 1);
  });

  test('a crash in the middle of a send: once the lease runs out, the same message goes out once', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    await buildDueDigests(process(clock), { accountId: id });
    const digest = await only(id);
    // A worker claims the email, then dies (no outcome recorded).
    const [claimed] = await claimDueDeliveries(ctx.store().db, ctx.store().engine, {
      owner: 'crashed-worker',
      now: clock.now().toISOString(),
      leaseUntil: new Date(clock.now().getTime() + 5 * MINUTE).toISOString(),
      limit: 10,
      accountId: id,
    });
    assert.equal(claimed?.delivery, 'sending');

    clock.advance(MINUTE);
    assert.deepEqual(await deliverDueDigests(process(clock), { accountId: id }), [], 'lease still live');
    clock.advance(5 * MINUTE);
    const resumed = await deliverDueDigests(process(clock), { accountId: id });
    assert.deepEqual(
      resumed.map((d) => d.status),
      ['sent'],
    );
    const after = await digestById(ctx.store().db, digest.account_id, digest.id);
    assert.deepEqual([after?.delivery, after?.attempts, after?.message_id], ['sent', 2, digest.message_id]);
    assert.equal(smtp.messages.length, 1);
  });

  test('4xx and a dropped connection are retried with backoff; then it goes out', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    smtp.fail({ step: 'RCPT', action: 'reply', code: 451, message: '4.3.0 Try again later', times: 1 });
    const [first] = (await runDigestPass(process(clock), { accountId: id })).deliveries;
    assert.equal(first?.status, 'retrying');
    let digest = await only(id);
    assert.equal(digest.delivery, 'pending');
    assert.match(digest.last_error ?? '', /451/);
    // The first retry comes after 30–60 s (45 s with the tests' fixed jitter).
    assert.equal(digest.next_attempt_at, '2026-11-23T07:00:45.000Z');

    clock.advance(30_000);
    assert.deepEqual(await deliverDueDigests(process(clock), { accountId: id }), [], 'not yet');
    smtp.fail({ step: 'DATA', action: 'drop', times: 1 });
    clock.advance(15_000);
    const [second] = await deliverDueDigests(process(clock), { accountId: id });
    assert.equal(second?.status, 'retrying');
    digest = await only(id);
    assert.equal(digest.attempts, 2);
    // Second step: 60–120 s (90 s).
    assert.equal(digest.next_attempt_at, '2026-11-23T07:02:15.000Z');

    clock.set('2026-11-23T07:02:15Z');
    const [third] = await deliverDueDigests(process(clock), { accountId: id });
    assert.equal(third?.status, 'sent');
    digest = await only(id);
    assert.deepEqual([digest.delivery, digest.attempts, digest.last_error], ['sent', 3, null]);
    assert.equal(smtp.messages.length, 1);
  });

  test('5xx fails at once and is not retried; the error stays visible', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    smtp.fail({ step: 'RCPT', action: 'reply', code: 550, message: '5.1.1 No such user' });
    const [outcome] = (await runDigestPass(process(clock), { accountId: id })).deliveries;
    assert.equal(outcome?.status, 'failed');
    const digest = await only(id);
    assert.equal(digest.delivery, 'failed');
    assert.equal(digest.next_attempt_at, null);
    assert.match(digest.last_error ?? '', /550.*No such user/);
    smtp.fail();
    clock.advance(2 * RETRY_WINDOW_MS);
    assert.deepEqual(await deliverDueDigests(process(clock), { accountId: id }), []);
    assert.equal(smtp.messages.length, 0);
  });

  test('still failing 24 hours after the build: the last attempt comes at 24 h, then it is failed', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    smtp.fail({ step: 'MAIL', action: 'reply', code: 421, message: '4.7.0 Service not available' });
    await runDigestPass(process(clock), { accountId: id });
    let last = await only(id);
    for (let i = 0; i < 30 && last.delivery === 'pending'; i++) {
      clock.set(last.next_attempt_at ?? '');
      await deliverDueDigests(process(clock), { accountId: id });
      last = await only(id);
    }
    assert.equal(last.delivery, 'failed');
    assert.match(last.last_error ?? '', /421.*gave up after \d+ attempts in 24 hours/);
    assert.equal(clock.now().toISOString(), '2026-11-24T07:00:00.000Z', 'the last attempt at 24 h');
    assert.ok(last.attempts >= 10 && last.attempts <= 14, `${last.attempts} attempts`);
  });

  test('email turned off between build and send: not sent, said so', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    await buildDueDigests(process(clock), { accountId: id });
    await setEmail(ctx.store(), id, `reader${id}@example.org`, false);
    const [outcome] = await deliverDueDigests(process(clock), { accountId: id });
    assert.equal(outcome?.status, 'not_emailed');
    assert.equal((await only(id)).delivery, 'not_emailed');
    assert.equal(smtp.messages.length, 0);
  });

  test('with no SMTP configured the digest is built and readable, its delivery says no_smtp', async () => {
    const id = await emailedAccount();
    const clock = new TestClock('2026-11-23T07:00:00Z');
    const pass = await runDigestPass(testDigestDeps(ctx.store(), { now: clock.now }), { accountId: id });
    assert.deepEqual([pass.builds.map((b) => b.status), pass.deliveries], [['built'], []]);
    const digest = await only(id);
    assert.deepEqual([digest.delivery, digest.item_count], ['no_smtp', 2]);
    // A later process with SMTP does not send an old digest it was not built for.
    assert.deepEqual(await deliverDueDigests(process(clock), { accountId: id }), []);
  });
});
