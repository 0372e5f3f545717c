import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { addSavedUrl } from '../../queue/add.js';
import { accountById } from '../../store/accounts.js';
import { digestsPage } from '../../store/digests.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

const FULL = {
  timezone: 'europe/berlin',
  time: '06:30',
  max_items: '20',
  email: 'reader@example.com',
  email_enabled: 'on',
};

/** A form body with the days as repeated fields, as a browser sends checkboxes. */
function settingsForm(csrf: string, fields: Record<string, string>, days: string[]): string {
  const form = new URLSearchParams({ _csrf: csrf, ...fields });
  for (const d of days) form.append('days', d);
  return form.toString();
}

await describeEachEngine('web app: settings page', (ctx) => {
  let app: FastifyInstance;
  let account: { id: number; apiKey: string };
  let client: WebClient;

  const post = async (path: string, body: string) =>
    app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: body,
    });

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    account = await newAccount(ctx.store());
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('the page shows the stored settings, a searchable zone list, and says the server sends no email', async () => {
    const page = await client.get('/settings');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="timezone"[^>]*value="UTC"/);
    assert.match(page.body, /<datalist id="zones">[\s\S]*<option value="Europe\/Berlin">/);
    for (const zone of ['Asia/Kathmandu', 'Asia/Kolkata', 'Europe/Kyiv', 'UTC']) {
      assert.ok(page.body.includes(`<option value="${zone}">`), zone);
    }
    assert.match(page.body, /id="time"[^>]*value="07:00"/);
    assert.equal(page.body.match(/value="[a-z]{3}"\s+checked/g)?.length, 7);
    assert.match(page.body, /id="max-items"[^>]*value="100"/);
    assert.match(page.body, /no mail server configured/);
  });

  test('saving changes the account and moves its next digest to the new schedule', async () => {
    const res = await post('/settings', settingsForm(client.csrf, FULL, ['mon', 'wed', 'fri']));
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/settings?notice=saved');
    const a = await accountById(ctx.store().db, account.id);
    assert.ok(a !== null);
    assert.equal(a.timezone, 'Europe/Berlin');
    assert.equal(a.digest_time, '06:30');
    assert.equal(a.digest_days, 'mon,wed,fri');
    assert.equal(a.digest_max_items, 20);
    assert.equal(a.digest_skip_empty, false, 'an unticked box is off');
    assert.equal(a.email, 'reader@example.com');
    assert.equal(a.email_enabled, true);
    const due = DateTime.fromISO(a.digest_due_at ?? '', { zone: 'Europe/Berlin' });
    assert.equal(due.toFormat('HH:mm'), '06:30');
    assert.ok([1, 3, 5].includes(due.weekday));
    assert.ok(due.toMillis() > Date.now());
    const page = await client.get('/settings?notice=saved');
    assert.match(page.body, /role="status">Saved\./);
    assert.match(page.body, /\(Europe\/Berlin\)/);
    assert.equal(page.body.match(/\s+checked/g)?.length, 4, 'three days and email');
  });

  test('the time zone may be a city, as the hint says: Berlin is Europe/Berlin', async () => {
    const page = await client.get('/settings');
    assert.match(page.body, /id="timezone-hint">\s*A city, such as Berlin or New York/);
    const res = await post(
      '/settings',
      settingsForm(client.csrf, { ...FULL, timezone: 'new york' }, ['mon']),
    );
    assert.equal(res.statusCode, 303, res.body);
    assert.equal((await accountById(ctx.store().db, account.id))?.timezone, 'America/New_York');
    // The hint names the zone saved, not an example that reads like it (it said "(Europe/Berlin)" here).
    const hint = /id="timezone-hint">([^<]*)</.exec((await client.get('/settings')).body)?.[1] ?? '';
    assert.match(hint, /Saved as America\/New_York\.\s*$/);
    assert.doesNotMatch(hint, /Berlin\)/);
    const berlin = await post(
      '/settings',
      settingsForm(client.csrf, { ...FULL, timezone: 'Berlin' }, ['mon']),
    );
    assert.equal(berlin.statusCode, 303, berlin.body);
    assert.equal((await accountById(ctx.store().db, account.id))?.timezone, 'Europe/Berlin');
  });

  test('refused values are listed in plain words, the form keeps them, nothing changes', async () => {
    const before = await accountById(ctx.store().db, account.id);
    const bad = { timezone: 'Mars/Olympus', time: '25:00', max_items: '0', email: 'x<a@evil.test>' };
    const res = await post('/settings', settingsForm(client.csrf, bad, []));
    assert.equal(res.statusCode, 400);
    for (const message of [
      /Days: choose at least one day/,
      /Time zone: unknown time zone &quot;Mars\/Olympus&quot;/,
      /Send time: must be HH:MM/,
      /Most links in one digest: must be at least 1/,
      /Email address: not an email address: &quot;x&lt;a@evil\.test&gt;&quot;/,
    ]) {
      assert.match(res.body, message);
    }
    assert.match(res.body, /id="timezone"[^>]*value="Mars\/Olympus"/);
    assert.match(res.body, /id="email"[^>]*value="x&lt;a@evil\.test&gt;"/);
    assert.match(res.body, /aria-invalid="true"/);
    assert.deepEqual(await accountById(ctx.store().db, account.id), before);
  });

  test('an empty email address removes it; without the session token nothing is saved', async () => {
    const res = await post('/settings', settingsForm(client.csrf, { ...FULL, email: '' }, ['sat']));
    assert.equal(res.statusCode, 303);
    assert.equal((await accountById(ctx.store().db, account.id))?.email, null);
    const forged = await post('/settings', settingsForm('x'.repeat(43), FULL, ['sun']));
    assert.equal(forged.statusCode, 403);
    assert.equal((await accountById(ctx.store().db, account.id))?.digest_days, 'sat');
  });

  test('“send me a digest now”: nothing with an empty queue; then a digest, readable, and the queue empties', async () => {
    await client.get('/settings');
    const empty = await client.post('/settings/digest-now');
    assert.equal(empty.headers.location, '/settings?notice=empty');
    assert.match((await client.get('/settings?notice=empty')).body, /Your queue is empty/);

    for (const n of [1, 2]) {
      await addSavedUrl(
        ctx.store(),
        account.id,
        { url: `https://example.com/${n}`, title: `Item ${n}`, source: 'api' },
        { limit: 100 },
      );
    }
    const built = await client.post('/settings/digest-now');
    const location = String(built.headers.location);
    assert.match(location, /^\/settings\?notice=built&digest=\d+$/);
    const page = await client.get(location);
    assert.match(page.body, /Your digest of 2 links is built/);
    assert.match(page.body, /It is not emailed: email is off, or there is no address/);
    const link = /<a href="http:\/\/127\.0\.0\.1:8080(\/digests\/\d+\?token=[^"]+)">Read it<\/a>/.exec(
      page.body,
    )?.[1];
    assert.ok(link !== undefined, 'a link to read it');
    const read = await app.inject({ method: 'GET', url: link.replace(/&amp;/g, '&') });
    assert.equal(read.statusCode, 200);
    assert.match(read.body, /Item 1/);
    const queue = await app.inject({ method: 'GET', url: `/api?api_key=${account.apiKey}` });
    assert.deepEqual(queue.json(), []);

    await addSavedUrl(
      ctx.store(),
      account.id,
      { url: 'https://example.com/3', source: 'api', title: undefined },
      { limit: 100 },
    );
    const again = await client.post('/settings/digest-now');
    assert.match(String(again.headers.location), /notice=exists/);
    const said = (await client.get(String(again.headers.location))).body;
    assert.match(
      said,
      /Today already has its digest, and Tidings builds one digest a day: nothing was built now/,
    );
    assert.match(said, /What you queue now comes in your next digest,\s*<time datetime="[^"]+Z"/);
    assert.match(
      said,
      /Today has its digest already \(<a [^>]*>read it<\/a>\), and Tidings builds one digest a\s+day\./,
    );
  });

  test('another account’s digest id in the notice shows nothing of it', async () => {
    const other = await newAccount(ctx.store());
    await addSavedUrl(
      ctx.store(),
      other.id,
      { url: 'https://other.example/', title: 'Other', source: 'api' },
      { limit: 10 },
    );
    const otherClient = new WebClient(app);
    await otherClient.signIn(other.apiKey);
    const res = await otherClient.post('/settings/digest-now');
    const id = /digest=(\d+)/.exec(String(res.headers.location))?.[1] ?? '';
    const page = await client.get(`/settings?notice=built&digest=${id}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Read it|is built/);
  });

  test('with a mail server and email on, the digest built now is to be emailed', async () => {
    const mailing = webServer(ctx.store(), {
      smtp: { smtpUrl: 'smtp://127.0.0.1:2525', mailFrom: 'digest@example.com' },
    });
    try {
      const reader = await newAccount(ctx.store());
      const browser = new WebClient(mailing);
      await browser.signIn(reader.apiKey);
      const page = await browser.get('/settings');
      assert.doesNotMatch(page.body, /no mail server configured/);
      await browser.post('/settings', { ...FULL, days: 'mon' });
      await addSavedUrl(
        ctx.store(),
        reader.id,
        { url: 'https://example.com/mail', title: 'Mail', source: 'api' },
        { limit: 10 },
      );
      await browser.get('/settings');
      const res = await browser.post('/settings/digest-now');
      assert.match((await browser.get(String(res.headers.location))).body, /It is being emailed to you/);
      const [digest] = await digestsPage(ctx.store().db, reader.id, { offset: 0, limit: 1 });
      assert.equal(digest?.delivery, 'pending');
    } finally {
      await mailing.close();
    }
  });
});
