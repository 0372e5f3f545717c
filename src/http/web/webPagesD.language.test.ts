import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { newsletterSenders } from '../../accounts/newsletters.js';
import { ingestMessage } from '../../newsletters/ingest.js';
import { updateAccountSettings } from '../../store/accounts.js';
import { TestClock } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount, silentLogger } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../../test/inbound.js';
import { letterFrom } from '../../test/newsletterSenders.js';
import { SmtpTestServer } from '../../test/smtpServer.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6 for the Newsletters page (round 2, d): rendered in the pseudo-locale en-XA, no
 * English word is left, with a sender, its new-sender notice, every notice, the refusal of an unticked
 * rotation and what an unsubscribe did; in Arabic the page runs right to left.
 */

/** Parts of a page that other pages' code writes (converted on their own): taken out before the check. */
const NOT_THESE_PAGES = [
  // pages/feedRow.ts's shareForm, shown under each sender.
  /<form class="stack" method="post" action="\/feeds\/\d+\/share">[\s\S]*?<\/form>/g,
];

/** The fixture's own text, and what a page quotes the same in every language (`test`: the account's name). */
const CONTENT = ['test', 'River Weekly', 'Please confirm', 'TIDINGS_INBOUND_DOMAIN', 'RFC 8058'];

const englishLeft = (body: string, address: string): string[] =>
  englishWordsOf(
    NOT_THESE_PAGES.reduce((b, part) => b.replace(part, ' '), body),
    [...CONTENT, address, 'river@lists.example', 'leave@lists.example'],
  );

await describeEachEngine('web app: Newsletters in the reader’s language', (ctx) => {
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

  /** A signed-in reader in `language` with one newsletter from "River Weekly" (a mailto unsubscribe). */
  async function reader(language: string) {
    const account = await newAccount(ctx.store());
    await updateAccountSettings(ctx.store().db, account.id, { language });
    const address = await addressOfAccount(ctx.store(), account.id);
    const raw = letterFrom('"River Weekly" <river@lists.example>', {
      to: address,
      id: `d${account.id}`,
      subject: 'Please confirm',
      unsubscribe: '<mailto:leave@lists.example?subject=leave%20rivers>',
    });
    const stored = await ingestMessage(
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
    assert.equal(stored.outcome, 'stored');
    const [sender] = await newsletterSenders(ctx.store(), account.id, clock.now());
    assert.ok(sender?.id != null);
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    return { client, id: sender.id, address };
  }

  test('en-XA: the Newsletters page, its notices, refusal and unsubscribe leave no English word', async () => {
    const { client, id, address } = await reader('en-XA');
    const plain = await client.get('/newsletters');
    assert.equal(plain.statusCode, 200);
    assert.match(plain.body, /<html lang="en-XA" dir="ltr">/);
    assert.match(plain.body, /id="new-sender-/, 'the new-sender notice is shown');
    assert.match(plain.body, /id="sender-/, 'the sender is listed');
    assert.deepEqual(englishLeft(plain.body, address), [], 'the page');
    for (const notice of ['rotated', 'dismissed', 'share', 'unmuted']) {
      const res = await client.get(`/newsletters?notice=${notice}`);
      assert.match(res.body, /<p class="notice" role="status">/, notice);
      assert.deepEqual(englishLeft(res.body, address), [], notice);
    }
    const unticked = await client.post('/newsletters/rotate');
    assert.equal(unticked.statusCode, 400);
    assert.match(unticked.body, /<p class="error" role="alert">/);
    assert.deepEqual(englishLeft(unticked.body, address), [], 'unticked rotation');
    const done = await client.post(`/newsletters/${id}/unsubscribe`);
    assert.equal(done.statusCode, 200);
    assert.equal(smtp.messages.length, 1);
    assert.deepEqual(englishLeft(done.body, address), [], 'after unsubscribing');
    const muted = await client.get('/newsletters');
    assert.match(muted.body, /action="\/feeds\/\d+\/unmute"/, 'the muted line is shown');
    assert.deepEqual(englishLeft(muted.body, address), [], 'a muted, unsubscribed sender');
  });

  test('ar: the Newsletters page runs right to left', async () => {
    const { client } = await reader('ar');
    const res = await client.get('/newsletters');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html lang="ar" dir="rtl">/);
    assert.ok(res.body.includes('النشرات البريدية'));
  });
});
