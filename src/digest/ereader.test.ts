import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { simpleParser } from 'mailparser';
import type { Store } from '../store/db.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { TestClock, digestsOf, saveUrl, setDueAt, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { buildDueDigests } from './build.js';
import { deliverDueDigests } from './deliver.js';
import type { DigestDeps } from './deps.js';
import { deliverDueEreaderCopies } from './ereader.js';
import { EPUB_MEDIA_TYPE } from './epub/book.js';
import { type Mailer, createMailer } from './mail.js';
import { runDigestPass } from './worker.js';

/**
 * The e-reader copy over a real SMTP conversation (an in-process smtp-server): one message with the EPUB
 * attached (EPUBCheck accepts it), the link instead past the size limit, retried on its own, stopped when
 * the address is removed; the email beside it goes once whatever happens to the copy, and the other way
 * round.
 */

const MINUTE = 60_000;
const skip = epubcheckSkipReason();

await describeEachEngine('digest to an e-reader', (ctx) => {
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

  const process = (clock: TestClock, over: { ereaderMaxBytes?: number } = {}, store: Store = ctx.store()) =>
    testDigestDeps(store, { now: clock.now, mailer, ...over });

  async function setEreader(id: number, address: string | null): Promise<void> {
    await ctx
      .store()
      .db.updateTable('accounts')
      .set({ ereader_email: address })
      .where('id', '=', id)
      .execute();
  }

  /** An account with an inbox, an e-reader address and two saved links, due at 07:00 UTC on 23 November. */
  async function readerAccount(): Promise<number> {
    const { id } = await newAccount(ctx.store());
    await setEmail(ctx.store(), id, `reader${id}@example.org`);
    await setEreader(id, `reader${id}@kindle.example`);
    await setDueAt(ctx.store(), id, '2026-11-23T07:00:00.000Z');
    await saveUrl(ctx.store(), id, 'https://ereader.example/a', 'First link');
    await saveUrl(ctx.store(), id, 'https://ereader.example/b');
    return id;
  }

  const only = async (accountId: number) => {
    const [digest, ...more] = await digestsOf(ctx.store(), accountId);
    assert.ok(digest !== undefined);
    assert.equal(more.length, 0);
    return digest;
  };
  const to = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

  test('one message to the e-reader with the EPUB attached; the email goes once', async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    const pass = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(
      [pass.deliveries.map((d) => d.status), pass.ereader.map((d) => d.status)],
      [['sent'], ['sent']],
    );
    const digest = await only(id);
    assert.deepEqual(
      [digest.ereader_state, digest.ereader_attempts, digest.ereader_sent_at, digest.ereader_error],
      ['sent', 1, '2026-11-23T07:00:10.000Z', null],
    );
    assert.equal(to(`reader${id}@example.org`).length, 1);
    const copies = to(`reader${id}@kindle.example`);
    assert.equal(copies.length, 1);
    assert.equal(smtp.messages.length, 2);
    const parsed = await simpleParser(copies[0]?.raw ?? Buffer.alloc(0));
    assert.equal(parsed.subject, 'Tidings — Monday 23 November');
    assert.equal(parsed.messageId, digest.message_id.replace('<', '<ereader.'));
    assert.equal(parsed.html, false, 'text only');
    assert.match(parsed.text ?? '', /attached as tidings-2026-11-23\.epub/);
    assert.equal(parsed.attachments.length, 1);
    const [file] = parsed.attachments;
    assert.ok(file !== undefined);
    assert.deepEqual([file.filename, file.contentType], ['tidings-2026-11-23.epub', EPUB_MEDIA_TYPE]);
    assert.equal(file.content.subarray(30, 58).toString('latin1'), 'mimetypeapplication/epub+zip');

    clock.advance(MINUTE);
    const again = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(again, { builds: [], deliveries: [], ereader: [] });
    assert.equal(smtp.messages.length, 2, 'never twice');
  });

  test('EPUBCheck accepts the attachment as received', { skip }, async () => {
    const id = await readerAccount();
    await runDigestPass(process(new TestClock('2026-11-23T07:00:10Z')), { accountId: id });
    const copy = to(`reader${id}@kindle.example`)[0];
    assert.ok(copy !== undefined);
    const file = (await simpleParser(copy.raw)).attachments[0];
    assert.ok(file !== undefined);
    const report = await epubcheck(file.content);
    assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
  });

  test('past the size limit: no attachment, the message says so and links the download', async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    const pass = await runDigestPass(process(clock, { ereaderMaxBytes: 100 }), { accountId: id });
    assert.deepEqual(
      pass.ereader.map((o) => (o.status === 'sent' ? o.attached : o.status)),
      [false],
    );
    const copy = to(`reader${id}@kindle.example`)[0];
    assert.ok(copy !== undefined);
    const parsed = await simpleParser(copy.raw);
    assert.equal(parsed.attachments.length, 0);
    const digest = await only(id);
    const { token } = await ctx
      .store()
      .db.selectFrom('digest_tokens')
      .select('token')
      .where('account_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.match(parsed.text ?? '', /more than the 0\.0 MB Tidings attaches/);
    assert.ok(
      (parsed.text ?? '').includes(`https://tidings.example/digests/${digest.id}/epub?token=${token}`),
      parsed.text,
    );
  });

  test("the copy's SMTP failure is retried later without sending the email again", async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    await buildDueDigests(process(clock), { accountId: id });
    assert.deepEqual(
      (await deliverDueDigests(process(clock), { accountId: id })).map((o) => o.status),
      ['sent'],
    );
    smtp.fail({ step: 'RCPT', action: 'reply', code: 451, message: '4.2.0 try later', times: 1 });
    const failed = await deliverDueEreaderCopies(process(clock), { accountId: id });
    assert.deepEqual(
      failed.map((o) => o.status),
      ['retrying'],
    );
    let digest = await only(id);
    assert.equal(digest.ereader_state, 'pending');
    assert.match(digest.ereader_error ?? '', /451|try later/);
    assert.equal(digest.delivery, 'sent');

    clock.advance(30 * MINUTE);
    const retried = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual([retried.deliveries, retried.ereader.map((o) => o.status)], [[], ['sent']]);
    digest = await only(id);
    assert.deepEqual([digest.ereader_state, digest.ereader_attempts], ['sent', 2]);
    assert.equal(to(`reader${id}@example.org`).length, 1, 'the email once');
    assert.equal(to(`reader${id}@kindle.example`).length, 1, 'the copy once');
  });

  test("the email's failure is retried without sending the copy again", async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    await buildDueDigests(process(clock), { accountId: id });
    smtp.fail({ step: 'RCPT', action: 'reply', code: 451, times: 1 });
    assert.deepEqual(
      (await deliverDueDigests(process(clock), { accountId: id })).map((o) => o.status),
      ['retrying'],
    );
    assert.deepEqual(
      (await deliverDueEreaderCopies(process(clock), { accountId: id })).map((o) => o.status),
      ['sent'],
    );
    clock.advance(30 * MINUTE);
    const retried = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual([retried.deliveries.map((o) => o.status), retried.ereader], [['sent'], []]);
    assert.equal(to(`reader${id}@example.org`).length, 1);
    assert.equal(to(`reader${id}@kindle.example`).length, 1);
  });

  test('a crash between build and send: the next process sends the copy once', async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    await buildDueDigests(process(clock), { accountId: id });
    assert.equal((await only(id)).ereader_state, 'pending');
    clock.set('2026-11-23T09:30:00Z');
    const restarted = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual([restarted.builds, restarted.ereader.map((o) => o.status)], [[], ['sent']]);
    assert.equal(to(`reader${id}@kindle.example`).length, 1);
  });

  test('removing the address stops the copy: before the build none is made, after it none is sent', async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    await buildDueDigests(process(clock), { accountId: id });
    await setEreader(id, null);
    const pass = await runDigestPass(process(clock), { accountId: id });
    assert.deepEqual(
      pass.ereader.map((o) => o.status),
      ['not_emailed'],
    );
    assert.equal((await only(id)).ereader_state, 'not_emailed');
    assert.equal(to(`reader${id}@kindle.example`).length, 0);
    assert.equal(to(`reader${id}@example.org`).length, 1);

    const other = await readerAccount();
    await setEreader(other, null);
    const built = await runDigestPass(process(clock), { accountId: other });
    assert.deepEqual(built.ereader, []);
    assert.equal((await only(other)).ereader_state, null);
  });

  test('without SMTP the copy is marked no_smtp, as the email', async () => {
    const id = await readerAccount();
    const clock = new TestClock('2026-11-23T07:00:10Z');
    const deps: DigestDeps = { ...process(clock), mailer: null };
    const pass = await runDigestPass(deps, { accountId: id });
    assert.deepEqual(pass.ereader, []);
    const digest = await only(id);
    assert.deepEqual([digest.delivery, digest.ereader_state], ['no_smtp', 'no_smtp']);
    assert.equal(smtp.messages.length, 0);
  });
});
