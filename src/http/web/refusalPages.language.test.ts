import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { localeOf } from '../../i18n/locale.js';
import { settingRefusalWords } from './refusals.js';

/**
 * Issue 36 point 1: refusals whose error comes from below the transports with an English message (a
 * search, an administrator's own account, an e-mail address, a feed's address and filter) are shown in the
 * reader's words. In the pseudo-locale en-XA, the refusal on the page has no English word. So are the
 * Settings page's field refusals (src/accounts/settingRefusals.ts), what was typed shown as typed.
 */

/** Settings forms that each field refuses, every field filled (a field left out is kept as it is). */
const REFUSED_SETTINGS: Record<string, string>[] = [
  {
    timezone: 'Mars/Olympus',
    time: '25:00',
    max_items: '0',
    email: 'x<a@evil.test>',
    ereader_email: 'kindle',
    language: 'tlh',
    resurface: 'abc',
    resurface_order: 'newest',
  },
  { timezone: '', time: 'noon', max_items: 'lots', language: 'x'.repeat(36), resurface: '500' },
  { timezone: 'x'.repeat(101), max_items: '99999' },
];

/** The text of the page's refusals (`class="error"`), what the reader typed taken out. */
function refusalsOf(body: string): string {
  const found = [...body.matchAll(/<(?:p|div) class="error"[^>]*>([\s\S]*?)<\/(?:p|div)>/g)].map(
    (m) => m[1] ?? '',
  );
  assert.ok(found.length > 0, 'a refusal on the page');
  return found.join('\n');
}

await describeEachEngine('web app: refusals in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let admin: Awaited<ReturnType<typeof newAccount>>;
  let client: WebClient;

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    admin = await newAccount(ctx.store()); // the first account: an administrator
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'en-XA' });
    client = new WebClient(app);
    await client.signIn(admin.apiKey);
  });
  after(() => app.close());

  test('en-XA: search, Accounts and Feeds refusals leave no English word', async () => {
    const refused: [string, { statusCode: number; body: string }][] = [];
    for (const q of ['-pelican', 'x'.repeat(201)]) {
      refused.push([`search ${q.slice(0, 10)}`, await client.get(`/search?q=${encodeURIComponent(q)}`)]);
    }
    await client.get('/accounts');
    refused.push(['disable oneself', await client.post(`/accounts/${admin.id}/disable`)]);
    refused.push(['a bad address', await client.post('/accounts', { name: 'Bea', email: 'not an address' })]);
    await client.get('/feeds');
    refused.push(['an ftp feed', await client.post('/feeds', { url: 'ftp://files.example/feed' })]);
    refused.push([
      'a filter RE2 cannot run',
      await client.post('/feeds', { url: 'https://feeds.example/feed', include: '/(?<=foo)bar/' }),
    ]);
    await client.get('/settings/sign-in');
    for (const password of ['short', 'x'.repeat(1025)]) {
      refused.push([
        `a password of ${password.length}`,
        await client.post('/settings/sign-in/password', { password, confirm: password }),
      ]);
    }
    for (const [what, res] of refused) {
      assert.equal(res.statusCode, 400, what);
      const words = refusalsOf(res.body);
      assert.deepEqual(
        englishWordsOf(words, ['Bea', 'not an address', '/(?<=foo)bar/', 'ftp://files.example/feed']),
        [],
        `${what}: ${words}`,
      );
    }
  });

  test('en-XA: each Settings field refusal leaves no English word but what was typed', async () => {
    await client.get('/settings');
    const typed = REFUSED_SETTINGS.flatMap((form) => Object.values(form));
    let refusals = 0;
    for (const form of REFUSED_SETTINGS) {
      const res = await client.post('/settings', { time: '07:00', days: 'mon', ...form });
      assert.equal(res.statusCode, 400, JSON.stringify(form));
      const words = /id="settings-errors">([\s\S]*?)<\/div>/.exec(res.body)?.[1] ?? '';
      refusals += (words.match(/<li>/g) ?? []).length;
      assert.deepEqual(englishWordsOf(words, typed), [], words);
    }
    assert.equal(refusals, 15, 'every refused field is listed');
    // Refusals the form cannot reach (a zone's city in several regions; a flag is a checkbox).
    const pseudo = localeOf('en-XA');
    const unreachable = [
      settingRefusalWords(
        {
          reason: 'zone_ambiguous',
          typed: 'Springfield',
          zones: ['America/Springfield', 'Europe/Springfield'],
        },
        pseudo.t('web.settings.field.timezone'),
        pseudo,
      ),
      settingRefusalWords({ reason: 'flag_invalid', typed: 'maybe' }, 'images', pseudo),
    ];
    for (const words of unreachable) {
      assert.deepEqual(
        englishWordsOf(words, [
          'Springfield',
          'America/Springfield',
          'Europe/Springfield',
          'maybe',
          'images',
        ]),
        [],
        words,
      );
    }
  });

  test('German: a refused send time is a German sentence with what was typed', async () => {
    await updateAccountSettings(ctx.store().db, admin.id, { language: 'de' });
    try {
      await client.get('/settings');
      const res = await client.post('/settings', { timezone: 'Europe/Berlin', time: '25:00', days: 'mon' });
      assert.equal(res.statusCode, 400);
      assert.match(
        res.body,
        /Versandzeit: „25:00“ ist keine Uhrzeit\. Gib sie als HH:MM zwischen 00:00 und 23:59 ein\./,
      );
      const many = await client.post('/settings', { time: '07:00', days: 'mon', resurface: '500' });
      assert.match(many.body, /Leseliste in jeder Zusammenfassung: Die Zahl darf höchstens 10 sein\./);
    } finally {
      await updateAccountSettings(ctx.store().db, admin.id, { language: 'en-XA' });
    }
  });
});
