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
 * A digest of 10,000 items (the `max-items` ceiling, built as before migration 0025: every item an entry),
 * emailed through a real SMTP server: the email shows its first items, as many of the first EMAIL_ITEMS as
 * keep its HTML part under Gmail's clip (render/fit.ts), and a link to the rest on the web, and stays under
 * EMAIL_BOUND bytes as sent (with every item it was 12.6 MB).
 */
const EMAIL_BOUND = 200_000;

await describeEachEngine('a digest of 10,000 items by email', (ctx) => {
  let smtp: SmtpTestServer;
  before(async () => {
    smtp = await SmtpTestServer.start();
  });
  after(() => smtp.close());

  test(`the email carries as many of the first ${EMAIL_ITEMS} items as fit unclipped and says how many more`, async () => {
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
    // As many of the first EMAIL_ITEMS items as fit (in the order the email shows them); the HTML part,
    // as sent, under 102 KB.
    const titles = (body: string): string[] => [...new Set(body.match(/Big item #\d+#/g) ?? [])];
    const shown = titles(html);
    assert.ok(shown.length >= 60 && shown.length < EMAIL_ITEMS, `${shown.length} items shown`);
    const firstItems = new Set(Array.from({ length: EMAIL_ITEMS }, (_, i) => largeItemTitle(i)));
    assert.ok(
      shown.every((t) => firstItems.has(t)),
      'only the digest’s first items',
    );
    assert.deepEqual(titles(text).sort(), [...shown].sort(), 'the text part shows the same');
    const rawText = raw.toString('latin1');
    const htmlStart = rawText.search(/Content-Type: text\/html/i);
    const htmlBody = rawText.indexOf('\r\n\r\n', htmlStart) + 4;
    assert.ok(rawText.indexOf('\r\n--', htmlBody) - htmlBody < 102 * 1024, 'the HTML part is not clipped');
    for (const body of [html, text]) {
      assert.ok(body.includes('10000 new links: 1000 saved, 9000 from 5 feeds.'));
      assert.ok(body.includes(`…and ${10_000 - shown.length} more links.`));
    }
    assert.match(
      html,
      /more links\. <a [^>]*href="https:\/\/tidings\.example\/digests\/\d+\?token=[\w-]{43}&amp;action_token=[\w-]{43}"/,
    );
    assert.match(
      text,
      /Read the whole digest on the web:\nhttps:\/\/tidings\.example\/digests\/\d+\?token=[\w-]{43}&action_token=[\w-]{43}\n/,
    );
  });
});
