import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LOOP_HEADER, LOOP_VALUE } from '../lib/mailLoop.js';
import type { Store } from '../store/db.js';
import { TestClock } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { bigAttachment, deepNesting, mailchimpLike, substackLike } from '../test/newsletterFixtures.js';
import { sendRaw, smtpDialog } from '../test/smtpSend.js';
import { selfSigned } from '../test/tlsProxy.js';
import type { NewsletterDeps } from './ingest.js';
import { type SmtpInbound, startSmtpInbound } from './smtp.js';

/**
 * The SMTP way in, with a real client (nodemailer) that really sends to a real listener on port 0, on
 * both engines: what each step answers, and that a 250 means stored.
 */

const MAX_BYTES = 64 * 1024;
const DAILY_LIMIT = 4;

async function rows(store: Store, accountId: number): Promise<{ subject: string; via: string }[]> {
  return store.db
    .selectFrom('newsletter_messages')
    .select(['subject', 'via'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

await describeEachEngine('newsletters over SMTP', (ctx) => {
  let smtp: SmtpInbound;
  let tlsSmtp: SmtpInbound;
  let tlsDir: string;
  let ca = '';
  const clock = new TestClock('2026-11-05T12:00:00Z');
  const deps = (): NewsletterDeps => ({
    store: ctx.store(),
    log: silentLogger,
    baseUrl: TEST_BASE_URL,
    inbound: { ...TEST_INBOUND, maxBytes: MAX_BYTES, dailyLimit: DAILY_LIMIT },
    queueLimit: 10_000,
    now: clock.now,
  });
  before(async () => {
    smtp = await startSmtpInbound(deps(), { host: '127.0.0.1', port: 0, tls: null });
    tlsDir = mkdtempSync(join(tmpdir(), 'tidings-smtp-tls-'));
    selfSigned(tlsDir, 'DNS:localhost,IP:127.0.0.1');
    const certFile = join(tlsDir, 'server.crt');
    ca = readFileSync(certFile, 'utf8');
    tlsSmtp = await startSmtpInbound(deps(), {
      host: '127.0.0.1',
      port: 0,
      tls: { certFile, keyFile: join(tlsDir, 'server.key') },
    });
  });
  after(async () => {
    await smtp.stop();
    await tlsSmtp.stop();
    rmSync(tlsDir, { recursive: true, force: true });
  });

  test('250 once stored; the same message again is 250 and kept once; two addresses of one account: one entry', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    const sent = await sendRaw(smtp.port, substackLike({ to }), [to]);
    assert.ok(sent.ok, JSON.stringify(sent));
    assert.match(sent.response, /^250 /);
    assert.deepEqual(await rows(store, account.id), [
      { subject: 'Why the river moved: a field report', via: 'smtp' },
    ]);
    // The envelope decides, not the headers: a Bcc'd copy (To: someone else) is taken in too.
    const again = await sendRaw(smtp.port, substackLike({ to: 'list@substack.example' }), [to]);
    assert.ok(again.ok, JSON.stringify(again));
    const other = await newAccount(store);
    const otherTo = await addressOfAccount(store, other.id);
    const both = await sendRaw(smtp.port, mailchimpLike({ to }), [to, otherTo, to.toUpperCase()]);
    assert.ok(both.ok, JSON.stringify(both));
    assert.equal((await rows(store, account.id)).length, 2);
    assert.equal((await rows(store, other.id)).length, 1);
  });

  test('an address that is no account: 550 at RCPT TO; with another that is, only it is taken', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    const nobody = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@inbound.example';
    const refused = await sendRaw(smtp.port, substackLike({ to: nobody }), [nobody]);
    assert.ok(!refused.ok);
    assert.equal(refused.code, 550);
    assert.equal(refused.command, 'RCPT TO');
    const elsewhere = await sendRaw(smtp.port, substackLike({ to: 'x@gmail.example' }), ['x@gmail.example']);
    assert.ok(!elsewhere.ok && elsewhere.code === 550);
    const mixed = await sendRaw(smtp.port, mailchimpLike({ to }), [nobody, to]);
    assert.ok(mixed.ok, JSON.stringify(mixed));
    assert.deepEqual(mixed.rejected, [nobody]);
    assert.equal((await rows(store, account.id)).length, 1);
  });

  test('over TIDINGS_INBOUND_MAX_BYTES: 552 when declared in MAIL FROM, and 552 when it only shows while streaming', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    const big = Buffer.concat([Buffer.from(`To: ${to}\r\n`), bigAttachment(MAX_BYTES * 2)]);
    // The limit is advertised (nodemailer then refuses to send it at all), and a SIZE over it is 552.
    const declared = await sendRaw(smtp.port, big, [to], { size: big.byteLength });
    assert.ok(!declared.ok);
    assert.match(declared.response, new RegExp(`larger than allowed ${MAX_BYTES}`));
    const [, ehlo, mail] = await smtpDialog(smtp.port, [
      'EHLO client.example',
      `MAIL FROM:<sender@newsletter.example> SIZE=${big.byteLength}`,
    ]);
    assert.match(ehlo ?? '', new RegExp(`^250[- ]SIZE ${MAX_BYTES}\r$`, 'm'));
    assert.match(mail ?? '', /^552 /);
    // A client that does not say (or lies): counted while it streams, refused at its end.
    const streamed = await smtpDialog(smtp.port, [
      'EHLO client.example',
      'MAIL FROM:<sender@newsletter.example>',
      `RCPT TO:<${to}>`,
      'DATA',
      `${big.toString('latin1')}\r\n.`,
    ]);
    assert.match(streamed[4] ?? '', /^354 /);
    assert.match(streamed[5] ?? '', /^552 /);
    assert.deepEqual(await rows(store, account.id), []);
    // The listener goes on.
    assert.ok((await sendRaw(smtp.port, substackLike({ to }), [to])).ok);
  });

  test("malformed: refused with 550, Tidings' own mail: refused with 550 (a loop), nothing kept, nothing crashes", async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    const nested = Buffer.concat([Buffer.from(`To: ${to}\r\n`), deepNesting(100)]);
    const garbage = Buffer.from('\u0000\u0001\u0002 not a message at all\r\n');
    for (const raw of [nested, garbage]) {
      const answer = await sendRaw(smtp.port, raw, [to]);
      assert.ok(!answer.ok);
      assert.equal(answer.code, 550, answer.response);
      assert.match(answer.response, /cannot be read/);
    }
    const ours = substackLike({ to, extraHeaders: [`${LOOP_HEADER}: ${LOOP_VALUE}`] });
    const loop = await sendRaw(smtp.port, ours, [to]);
    assert.ok(!loop.ok);
    assert.equal(loop.code, 550);
    assert.match(loop.response, /loop/);
    assert.deepEqual(await rows(store, account.id), []);
  });

  test('the daily limit: a temporary 452 at RCPT TO, taken again once the 24 hours move on', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    for (let i = 0; i < DAILY_LIMIT; i++) {
      const ok = await sendRaw(smtp.port, substackLike({ to, messageId: `daily-${i}@x.example` }), [to]);
      assert.ok(ok.ok, JSON.stringify(ok));
    }
    const over = await sendRaw(smtp.port, substackLike({ to, messageId: 'daily-over@x.example' }), [to]);
    assert.ok(!over.ok);
    assert.equal(over.code, 452);
    assert.equal(over.command, 'RCPT TO');
    assert.equal((await rows(store, account.id)).length, DAILY_LIMIT);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    const later = await sendRaw(smtp.port, substackLike({ to, messageId: 'daily-over@x.example' }), [to]);
    assert.ok(later.ok, JSON.stringify(later));
  });

  test('STARTTLS with the configured certificate; the message then goes as over plain SMTP', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const to = await addressOfAccount(store, account.id);
    const sent = await sendRaw(tlsSmtp.port, substackLike({ to }), [to], { starttls: { ca } });
    assert.ok(sent.ok, JSON.stringify(sent));
    assert.equal((await rows(store, account.id)).length, 1);
  });
});

test('a certificate that cannot be read is a clear error at start', async () => {
  await assert.rejects(
    startSmtpInbound({} as NewsletterDeps, {
      host: '127.0.0.1',
      port: 0,
      tls: { certFile: '/nonexistent/cert.pem', keyFile: '/nonexistent/key.pem' },
    }),
    /TIDINGS_INBOUND_SMTP_CERT/,
  );
});
