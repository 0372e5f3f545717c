import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { LANGUAGES } from '../../i18n/languages.js';
import { setOperatorLanguage } from '../../i18n/locale.js';
import { accountById, updateAccountSettings } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 points 4 and 6 for Settings and the pages it leads to: rendered in the pseudo-locale en-XA,
 * no English word is left; in Arabic the pages run right to left; the Language choice on Settings is the
 * account's language (`account set --language`), and "default" gives the browser's back.
 */

/** Code a page quotes, the same in every language: a command, a setting's name. */
const CODE = ['tidings key create', 'TIDINGS_BASE_URL'];

function englishLeft(body: string, content: readonly string[] = []): string[] {
  return englishWordsOf(body, [...CODE, ...content]);
}

await describeEachEngine('web app: Settings in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;

  const postSettings = async (fields: Record<string, string>, days: string[]) => {
    const form = new URLSearchParams({ _csrf: client.csrf, ...fields });
    for (const d of days) form.append('days', d);
    return app.inject({
      method: 'POST',
      url: '/settings',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: form.toString(),
    });
  };

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('en-XA: Settings, its notices and refusals, and Your account leave no English word', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
    const name = (await accountById(ctx.store().db, account.id))?.name ?? '';
    // The languages in the chooser are each written in itself, whatever the page's language.
    const content = [name, 'UTC', ...LANGUAGES.map((l) => l.name)];
    for (const url of [
      '/settings',
      '/settings?notice=saved',
      '/settings?notice=unsubscribe_reset',
      '/settings?notice=empty',
      '/settings/account',
      '/settings/account?notice=renamed',
      '/settings/sign-in',
      '/settings/sign-in?notice=password_set',
      '/settings/sign-in?notice=password_removed',
      '/settings/sign-in?notice=passkey_added',
      '/settings/sign-in?notice=passkey_renamed',
      '/settings/sign-in?notice=passkey_deleted',
      '/settings/e-reader-catalogue',
      '/settings/e-reader-catalogue?notice=revoked',
    ]) {
      const res = await client.get(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<html lang="en-XA" dir="ltr">/, url);
      assert.deepEqual(englishLeft(res.body, content), [], url);
    }
    // "Send me a digest now" with an empty queue: the notice it leads to.
    await client.get('/settings');
    const empty = await client.post('/settings/digest-now');
    assert.equal(empty.statusCode, 303);
    const emptyPage = await client.get(empty.headers.location ?? '');
    assert.deepEqual(englishLeft(emptyPage.body, content), []);
    // Sign-in settings: two passwords that differ, then a password set (its age in words).
    await client.get('/settings/sign-in');
    const differ = await client.post('/settings/sign-in/password', {
      password: 'a'.repeat(12),
      confirm: 'b',
    });
    assert.equal(differ.statusCode, 400);
    assert.deepEqual(englishLeft(differ.body, content), []);
    const set = await client.post('/settings/sign-in/password', {
      password: 'correct horse battery',
      confirm: 'correct horse battery',
    });
    assert.equal(set.statusCode, 303, set.body);
    const withPassword = await client.get('/settings/sign-in');
    assert.match(withPassword.body, /id="current-password"/);
    assert.deepEqual(englishLeft(withPassword.body, content), []);
    const wrong = await client.post('/settings/sign-in/password/remove', { current: 'not it at all' });
    assert.equal(wrong.statusCode, 403);
    assert.deepEqual(englishLeft(wrong.body, content), []);
    // The e-reader catalogue's private link, made: shown once, and its age.
    await client.get('/settings/e-reader-catalogue');
    const made = await client.post('/settings/e-reader-catalogue/link');
    assert.equal(made.statusCode, 200);
    assert.match(made.body, /aria-label="[^"]+"/);
    assert.deepEqual(englishLeft(made.body, content), []);
    // A refusal of the page's own: no day chosen.
    const refused = await postSettings({ timezone: 'UTC', time: '07:00', max_items: '10' }, []);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /role="alert"/);
    assert.deepEqual(englishLeft(refused.body, content), []);
  });

  test('ar: Settings and Your account run right to left; the days and the Language choice in Arabic', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'ar' });
    const settings = await client.get('/settings');
    assert.match(settings.body, /<html lang="ar" dir="rtl">/);
    assert.match(settings.body, /الاثنين/);
    assert.match(settings.body, /<option value="ar" lang="ar"[^>]*selected/);
    const profile = await client.get('/settings/account');
    assert.match(profile.body, /<html lang="ar" dir="rtl">/);
    const share = await client.get('/share?url=https%3A%2F%2Fexample.com%2Fa');
    assert.match(share.body, /<h1>احفظ رابطًا مُشارَكًا<\/h1>/);
    const shareWithout = await client.get('/share?text=nothing');
    assert.equal(shareWithout.statusCode, 400);
    assert.match(shareWithout.body, /ليس فيه عنوان ويب/);
  });

  test('the Language choice: each language by its own name, no pseudo-locale; Arabic, then the browser’s again', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: null });
    const page = await client.get('/settings', { 'accept-language': 'en' });
    assert.match(page.body, /<select id="language" name="language"/);
    assert.match(page.body, /<option value="default"\s+selected>\s*The browser’s language/);
    assert.match(page.body, /<option value="ar" lang="ar"\s*>\s*العربية\s*<\/option>/);
    assert.doesNotMatch(page.body, /value="en-XA"/);

    const base = { timezone: 'UTC', time: '07:00', max_items: '10' };
    const arabic = await postSettings({ ...base, language: 'ar' }, ['mon']);
    assert.equal(arabic.statusCode, 303, arabic.body);
    assert.equal((await accountById(ctx.store().db, account.id))?.language, 'ar');
    const next = await client.get('/settings', { 'accept-language': 'en' });
    assert.match(next.body, /<html lang="ar" dir="rtl">/);
    assert.match(next.body, /حُفظت|الإعدادات/);

    const back = await postSettings({ ...base, language: 'default' }, ['mon']);
    assert.equal(back.statusCode, 303, back.body);
    assert.equal((await accountById(ctx.store().db, account.id))?.language, null);
    const english = await client.get('/settings', { 'accept-language': 'en-GB,en;q=0.9' });
    assert.match(english.body, /<html lang="en" dir="ltr">/);
    const browserArabic = await client.get('/settings', { 'accept-language': 'ar' });
    assert.match(browserArabic.body, /<html lang="ar" dir="rtl">/);

    const unknown = await postSettings({ ...base, language: 'tlh' }, ['mon']);
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /Language: &quot;tlh&quot; is not a language Tidings speaks/);
    assert.match(unknown.body, /id="language"[^>]*aria-invalid="true"/);
  });

  test('en-XA: the sign-in page, its notices and refusals, and the error pages leave no English word', async () => {
    // A browser never asks for en-XA: the operator's default (TIDINGS_LANGUAGE) reaches the signed-out pages.
    setOperatorLanguage('en-XA');
    try {
      const out = new WebClient(app);
      for (const notice of ['', 'signed_out', 'ended', 'revoked', 'passkey_deleted', 'deleted']) {
        const res = await out.get(`/sign-in?notice=${notice}`);
        assert.match(res.body, /<html lang="en-XA" dir="ltr">/, notice);
        assert.deepEqual(englishLeft(res.body), [], notice);
      }
      for (const [path, fields] of [
        ['/sign-in', { key: '' }],
        ['/sign-in', { key: 'tdg_wrong' }],
        ['/sign-in/password', { identifier: '', password: '' }],
        ['/sign-in/password', { identifier: 'nobody', password: 'not this one' }],
        ['/sign-in', { _csrf: 'x'.repeat(43), key: 'tdg_wrong' }],
      ] as const) {
        await out.get('/sign-in');
        const res = await out.post(path, fields);
        assert.ok(res.statusCode === 401 || res.statusCode === 403, `${path} ${res.statusCode}`);
        assert.match(res.body, /role="alert"/);
        assert.deepEqual(englishLeft(res.body), [], `${path} ${JSON.stringify(fields)}`);
      }
      const missing = await out.get('/no-such-page');
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(englishLeft(missing.body), []);
    } finally {
      setOperatorLanguage('en');
    }
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
    const name = [(await accountById(ctx.store().db, account.id))?.name ?? ''];
    const missing = await client.get('/no-such-page');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(englishLeft(missing.body, name), []);
    await client.get('/settings');
    const forged = await client.post('/settings/digest-now', { _csrf: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 403);
    assert.deepEqual(englishLeft(forged.body, name), []);
  });

  test('ar: the sign-in page of an Arabic browser, and its refusal', async () => {
    const out = new WebClient(app);
    const page = await out.get('/sign-in', { 'accept-language': 'ar' });
    assert.match(page.body, /<html lang="ar" dir="rtl">/);
    assert.match(page.body, /<h1>تسجيل الدخول<\/h1>/);
  });
});
