import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ereaderMessage } from '../digest/ereader.js';
import { localeOf } from '../i18n/locale.js';
import { updateAccountSettings } from '../store/accounts.js';
import { RecordingMailer, setEmail } from '../test/digestPipeline.js';
import { englishWordsOf } from '../test/englishWords.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { letterFrom } from '../test/newsletterSenders.js';
import { forwardConfirmations } from './forward.js';
import { ingestMessage } from './ingest.js';

/**
 * Issue 36 points 1 and 6: the e-mails Tidings sends besides the digest — the forward of a new sender's
 * first message, the e-reader copy (attached, or linked when too large) — are in the account's language:
 * in the pseudo-locale en-XA their subject, HTML and text leave no English word but the newsletter's own;
 * an Arabic account's forward is in Arabic.
 */

/** The newsletter's own text (letterFrom's): its sender, subject and body are not Tidings' to translate. */
const LETTER = [
  'River Weekly',
  'river@lists.example',
  'Confirm',
  'Please confirm your subscription:',
  'Yes, subscribe me',
  'We write about rivers, and the towns that move with them, once a week.',
];

await describeEachEngine('e-mails besides the digest: the account’s language', (ctx) => {
  const clock = new Date('2026-11-06T09:00:00.000Z');
  const now = () => clock;

  /** The forward an account in `language` gets of its first letter. */
  async function forwardIn(language: string) {
    const account = await newAccount(ctx.store());
    const email = `reader${account.id}@example.org`;
    await setEmail(ctx.store(), account.id, email);
    await updateAccountSettings(ctx.store().db, account.id, { language });
    const to = await addressOfAccount(ctx.store(), account.id);
    const raw = letterFrom('"River Weekly" <river@lists.example>', {
      to,
      id: `lang-${account.id}`,
      subject: 'Confirm',
    });
    const deps = { store: ctx.store(), log: silentLogger, baseUrl: TEST_BASE_URL, now };
    const stored = await ingestMessage({ ...deps, inbound: TEST_INBOUND, queueLimit: 1000 }, raw, {
      recipients: [],
      via: 'http',
    });
    assert.equal(stored.outcome, 'stored');
    const mailer = new RecordingMailer();
    await forwardConfirmations({ ...deps, mailer, mailFrom: 'Tidings <tidings@tidings.example>' });
    const mail = mailer.sent.find((m) => m.to === email);
    assert.ok(mail !== undefined, 'the first letter was forwarded');
    return mail;
  }

  test('en-XA: the forward’s subject, HTML and text leave no English word', async () => {
    const mail = await forwardIn('en-XA');
    for (const [part, body] of [
      ['subject', mail.subject],
      ['html', mail.html],
      ['text', mail.text],
    ] as const) {
      assert.deepEqual(englishWordsOf(body, LETTER), [], `the forward's ${part}: ${body}`);
    }
    assert.match(mail.html, /<a href="[^"]+\/items\/\d+">/, 'the link to its reading view');
  });

  test('Arabic: the forward’s own words are Arabic; English accounts’ stay as they were', async () => {
    const arabic = await forwardIn('ar');
    assert.equal(arabic.subject, 'مرسل جديد: Confirm');
    assert.match(arabic.text, /^هذه أول رسالة يتلقاها Tidings من River Weekly <river@lists\.example>/);
    const english = await forwardIn('en');
    assert.equal(english.subject, 'New sender: Confirm');
    assert.match(english.text, /^This is the first message Tidings received from River Weekly/);
    assert.match(english.html, /<a href="[^"]+">Read it in Tidings<\/a>\.<\/p>/);
  });
});

test('en-XA: the e-reader copy, attached or too large to attach, leaves no English word', () => {
  const pseudo = localeOf('en-XA');
  const epub = {
    fileName: 'tidings-2026-11-23.epub',
    bytes: new Uint8Array(2048),
    link: 'https://tidings.example/digests/1/epub?token=t',
    dateShort: pseudo.day('2026-11-23', false),
  };
  const attached = ereaderMessage(epub, 'kindle@example.org', '<digest.1.x@tidings.example>', 4096, pseudo);
  const linked = ereaderMessage(epub, 'kindle@example.org', '<digest.1.x@tidings.example>', 1024, pseudo);
  assert.ok(attached.attachments !== undefined && linked.attachments === undefined);
  for (const mail of [attached, linked]) {
    assert.deepEqual(englishWordsOf(`${mail.subject}\n${mail.text}`, [epub.fileName]), []);
  }
  const english = ereaderMessage(epub, 'k@example.org', '<d@x>', 1024, localeOf('en'));
  assert.match(
    english.text,
    /^Today's digest as an EPUB is 0\.0 MB, more than the 0\.0 MB Tidings attaches;/,
  );
});
