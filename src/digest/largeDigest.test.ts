import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { insertLargeDigest, largeItemTitle } from '../test/bigDigest.js';
import { setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { deliverDueDigests } from './deliver.js';
import { EMAIL_ITEMS } from './limits.js';
import { createMailer } from './mail.js';

/**
 * A digest of 10,000 items (the `max-items` ceiling), emailed through a real SMTP server: the email shows
 * its first EMAIL_ITEMS items and a link to the rest on the web, and stays under EMAIL_BOUND bytes as sent
 * (about 134 KB, HTML and text; with every item it was 12.6 MB).
 */
const EMAIL_BOUND = 200_000;

await describeEachEngine('a digest of 10,000 items by email', (ctx) => {
  let smtp: SmtpTestServer;
  before(async () => {
    smtp = await SmtpTestServer.start();
  });
  after(() => smtp.close());

  test(`the email carries the first ${EMAIL_ITEMS} items and says how many more, under ${EMAIL_BOUND} bytes`, async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    await setEmail(store, id, 'reader@example.org');
    const digestId = await insertLargeDigest(store, id, 10_000, { emailDue: true });
    const mailer = createMailer({ smtpUrl: smtp.url(), mailFrom: 'Tidings <digest@tidings.example>' });
    assert.ok(mailer !== null);
    const before = smtp.messages.length;
    try {
      const outcomes = await deliverDueDigests(testDigestDeps(store, { mailer }), { accountId: id });
      assert.deepEqual(outcomes, [{ status: 'sent', digestId, accountId: id }]);
    } finally {
      mailer.close();
    }
    const [raw] = smtp.messages.slice(before).map((m) => m.raw);
    assert.ok(raw !== undefined);
    assert.ok(raw.length < EMAIL_BOUND, `the email is ${raw.length} bytes`);
    const mail = await simpleParser(raw);
    const html = typeof mail.html === 'string' ? mail.html : '';
    const text = mail.text ?? '';
    for (const body of [html, text]) {
      assert.ok(body.includes('10000 new links: 1000 saved, 9000 from 5 feeds.'));
      for (let i = 0; i < EMAIL_ITEMS; i++) assert.ok(body.includes(largeItemTitle(i)), largeItemTitle(i));
      assert.ok(!body.includes(largeItemTitle(EMAIL_ITEMS)));
      assert.ok(body.includes(`…and ${10_000 - EMAIL_ITEMS} more links.`));
    }
    assert.match(
      html,
      /more links\. <a [^>]*href="https:\/\/tidings\.example\/digests\/\d+\?token=[\w-]{43}"/,
    );
    assert.match(
      text,
      /Read the whole digest on the web:\nhttps:\/\/tidings\.example\/digests\/\d+\?token=[\w-]{43}\n/,
    );
  });
});
