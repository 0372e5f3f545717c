import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { inviteAccount } from '../../accounts/invitations.js';
import { accountById } from '../../store/accounts.js';
import { rowsNamingAccount } from '../../test/accountRows.js';
import { saveUrl } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/** The Accounts page (administrators only), invitations, disabling, and a person's own account page. */
await describeEachEngine('web app: accounts and invitations', (ctx) => {
  let app: FastifyInstance;
  let admin: Awaited<ReturnType<typeof newAccount>>;
  let adminClient: WebClient;

  const api = async (key: string): Promise<{ a: [number, unknown]; b: [number, unknown] }> => {
    const a = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${key}` });
    const b = await app.inject({ method: 'GET', url: `/api?api_key=${key}` });
    return { a: [a.statusCode, a.json()], b: [b.statusCode, b.json()] };
  };
  const linkIn = (body: string): string => {
    const url = /id="invitation-url"[^>]*value="([^"]+)"/.exec(body)?.[1];
    assert.ok(url !== undefined, 'the page shows the invitation link');
    return new URL(url).pathname;
  };

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    admin = await newAccount(ctx.store()); // the first account of this database: an administrator
    adminClient = new WebClient(app);
    await adminClient.signIn(admin.apiKey);
  });
  after(() => app.close());

  test('only administrators see and use the Accounts page; others get 404 for it and its forms', async () => {
    const page = await adminClient.get('/accounts');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/accounts"\s+aria-current="page"\s*>Accounts<\/a/);
    assert.match(page.body, /test \d+<\/span> <span class="muted">\(you\)/);

    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    const queue = await client.get('/queue');
    assert.ok(!queue.body.includes('href="/accounts"'), 'no Accounts link for a reader');
    assert.equal((await client.get('/accounts')).statusCode, 404);
    for (const path of [
      '/accounts',
      '/accounts/invitations',
      `/accounts/${admin.id}/disable`,
      `/accounts/${reader.id}/admin`,
    ]) {
      const res = await client.post(path, { name: 'Sneaky', days: '7', admin: 'on' });
      assert.equal(res.statusCode, 404, path);
    }
    assert.equal((await accountById(ctx.store().db, reader.id))?.is_admin, false);
    // Signed out: the sign-in page, as for any page.
    assert.equal((await new WebClient(app).get('/accounts')).statusCode, 303);
  });

  test('an administrator creates an account: its key is shown once and works; bad input and missing CSRF change nothing', async () => {
    const count = async () => (await ctx.store().db.selectFrom('accounts').select('id').execute()).length;
    const before = await count();
    const bad = await adminClient.post('/accounts', { name: 'Bea', email: 'not an address' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /class="error" role="alert">Not an email address/);
    const forged = await adminClient.post('/accounts', { _csrf: null, name: 'Bea' });
    assert.equal(forged.statusCode, 403);
    assert.equal(await count(), before);

    const res = await adminClient.post('/accounts', {
      name: 'Bea',
      email: 'bea@example.org',
      timezone: 'Europe/Paris',
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const key = /id="created-account-key"[^>]*value="(tdg_[0-9a-f]+)"/.exec(res.body)?.[1];
    assert.ok(key !== undefined);
    const { a, b } = await api(key);
    assert.deepEqual([a[0], b[0]], [200, 200]);
    const page = await adminClient.get('/accounts');
    assert.ok(page.body.includes('Bea') && !page.body.includes(key), 'listed, the key never again');
  });

  test('an invitation link makes one account, signed in, and works once; expired and withdrawn links do not', async () => {
    const made = await adminClient.post('/accounts/invitations', {
      note: 'Cleo',
      email: 'cleo@example.org',
      days: '1',
    });
    assert.equal(made.statusCode, 200);
    const path = linkIn(made.body);
    assert.match(path, /^\/invite\/[A-Za-z0-9_-]{43}$/);
    assert.match((await adminClient.get('/accounts')).body, /Waiting invitations[\s\S]*Cleo/);
    assert.ok(!(await adminClient.get('/accounts')).body.includes(path), 'the link is shown once');
    assert.equal((await adminClient.post('/accounts/invitations', { days: '2' })).statusCode, 400);

    const guest = new WebClient(app);
    const form = await guest.get(path);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /id="email"[^>]*value="cleo@example.org"/);
    // Without the form's cookie token: refused, nothing made.
    const stranger = await new WebClient(app).post(path, { _csrf: guest.csrf, name: 'Cleo' });
    assert.equal(stranger.statusCode, 403);
    const badZone = await guest.post(path, { name: 'Cleo', timezone: 'Nowhere/Land' });
    assert.equal(badZone.statusCode, 400);
    assert.match(badZone.body, /id="name"[^>]*value="Cleo"/, 'the form keeps what was typed');

    const welcome = await guest.post(path, {
      name: 'Cleo',
      email: 'cleo@example.org',
      timezone: 'Europe/Rome',
    });
    assert.equal(welcome.statusCode, 200, welcome.body);
    assert.match(welcome.body, /Welcome, Cleo/);
    const key = /id="first-key"[^>]*value="(tdg_[0-9a-f]+)"/.exec(welcome.body)?.[1];
    assert.ok(key !== undefined);
    assert.equal((await api(key)).a[0], 200);
    const queue = await guest.get('/queue');
    assert.equal(queue.statusCode, 200, 'signed in');
    assert.match(queue.body, /<span>Cleo<\/span>/);
    assert.ok(!queue.body.includes('href="/accounts"'), 'an invited account is no administrator');

    const again = await new WebClient(app).get(path);
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /used already/);
    assert.equal((await guest.post(path, { name: 'Cleo again' })).statusCode, 410);

    const expired = await inviteAccount(
      ctx.store(),
      admin.id,
      { days: 1 },
      new Date(Date.now() - 25 * 3600_000),
    );
    assert.equal((await new WebClient(app).get(`/invite/${expired.token}`)).statusCode, 410);
    assert.equal((await new WebClient(app).get('/invite/nonsense')).statusCode, 404);

    const withdrawn = linkIn((await adminClient.post('/accounts/invitations', { days: '7' })).body);
    const id = /action="\/accounts\/invitations\/(\d+)\/revoke"/.exec(
      (await adminClient.get('/accounts')).body,
    )?.[1];
    assert.ok(id !== undefined);
    assert.equal(
      (await adminClient.post(`/accounts/invitations/${id}/revoke`, { _csrf: null })).statusCode,
      403,
    );
    const revoked = await adminClient.post(`/accounts/invitations/${id}/revoke`);
    assert.equal(revoked.statusCode, 303);
    assert.equal((await new WebClient(app).get(withdrawn)).statusCode, 404);
  });

  test('an invitation can set a password: mismatched or short ones are refused with nothing made, then it signs in', async () => {
    const path = linkIn((await adminClient.post('/accounts/invitations', { days: '7' })).body);
    const guest = new WebClient(app);
    assert.match((await guest.get(path)).body, /id="password"[^>]*autocomplete="new-password"/);
    const name = `Dora ${ctx.engine}`;
    const password = 'a long enough password';
    const differ = await guest.post(path, { name, password, confirm: 'something else' });
    assert.equal(differ.statusCode, 400);
    assert.match(differ.body, /The two passwords differ/);
    assert.ok(!differ.body.includes(password), 'a password is never echoed back');
    const short = await guest.post(path, { name, password: 'short', confirm: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 10 characters/);
    assert.equal((await new WebClient(app).get(path)).statusCode, 200, 'the link still works');

    const welcome = await guest.post(path, { name, password, confirm: password });
    assert.equal(welcome.statusCode, 200, welcome.body);
    const phone = new WebClient(app);
    await phone.get('/sign-in');
    const signedIn = await phone.post('/sign-in/password', { identifier: name, password });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    assert.equal((await phone.get('/queue')).statusCode, 200);

    // Disabled, the account's password opens nothing, with the message any wrong password gets.
    const { id: accountId } = await ctx
      .store()
      .db.selectFrom('accounts')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    await adminClient.get('/accounts');
    assert.equal((await adminClient.post(`/accounts/${accountId}/disable`)).statusCode, 303);
    assert.equal((await phone.get('/queue')).statusCode, 303, 'signed out');
    const fresh = new WebClient(app);
    await fresh.get('/sign-in');
    const refused = await fresh.post('/sign-in/password', { identifier: name, password });
    assert.equal(refused.statusCode, 401);
  });

  test('a disabled account is signed out, cannot sign in, and its key is refused by both API variants', async () => {
    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    await adminClient.get('/accounts');
    assert.equal((await adminClient.post(`/accounts/${reader.id}/disable`, { _csrf: null })).statusCode, 403);
    const own = await adminClient.post(`/accounts/${admin.id}/disable`);
    assert.equal(own.statusCode, 400);
    assert.match(own.body, /cannot disable your own account/);

    const res = await adminClient.post(`/accounts/${reader.id}/disable`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/accounts?notice=disabled');
    assert.match((await adminClient.get('/accounts')).body, /<strong>disabled<\/strong>/);

    assert.equal((await client.get('/queue')).statusCode, 303, 'the session has ended');
    const fresh = new WebClient(app);
    await fresh.get('/sign-in');
    assert.equal((await fresh.post('/sign-in', { key: reader.apiKey })).statusCode, 401);
    const { a, b } = await api(reader.apiKey);
    assert.equal(a[0], 401);
    assert.equal(b[0], 401);
    assert.deepEqual(a[1], b[1]);
    assert.deepEqual(Object.keys(a[1] as object).sort(), ['code', 'message']);
    assert.equal((a[1] as { code: number }).code, 40102);

    assert.equal((await adminClient.post(`/accounts/${reader.id}/enable`)).statusCode, 303);
    assert.equal((await api(reader.apiKey)).a[0], 200);
    await fresh.signIn(reader.apiKey);

    // Promoted, the reader sees the Accounts page; demoted again, not.
    await adminClient.get('/accounts');
    await adminClient.post(`/accounts/${reader.id}/admin`, { admin: 'on' });
    assert.equal((await fresh.get('/accounts')).statusCode, 200);
    await adminClient.get('/accounts');
    await adminClient.post(`/accounts/${reader.id}/admin`);
    assert.equal((await fresh.get('/accounts')).statusCode, 404);
  });

  test('a person renames their account and deletes it with everything in it, confirming by its name', async () => {
    const reader = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(reader.apiKey);
    await saveUrl(ctx.store(), reader.id, 'https://example.org/mine');
    const settings = await client.get('/settings');
    assert.match(settings.body, /href="\/settings\/account">Change your name, or delete your account/);
    await client.get('/settings/account');
    assert.equal((await client.post('/settings/account/name', { name: '   ' })).statusCode, 400);
    assert.equal(
      (await client.post('/settings/account/name', { _csrf: null, name: 'Dora' })).statusCode,
      403,
    );
    const renamed = await client.post('/settings/account/name', { name: ' Dora ' });
    assert.equal(renamed.headers.location, '/settings/account?notice=renamed');
    assert.equal((await accountById(ctx.store().db, reader.id))?.name, 'Dora');

    await client.get('/settings/account');
    assert.equal(
      (await client.post('/settings/account/delete', { _csrf: null, confirm: 'Dora' })).statusCode,
      403,
    );
    const wrong = await client.post('/settings/account/delete', { confirm: 'dora' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /Type the name of your account exactly/);
    const gone = await client.post('/settings/account/delete', { confirm: 'Dora' });
    assert.equal(gone.statusCode, 303);
    assert.equal(gone.headers.location, '/sign-in?notice=deleted');
    assert.ok(!client.cookies.has('tidings_session'), 'the cookie is cleared');
    assert.match((await client.get('/sign-in?notice=deleted')).body, /Your account is deleted/);
    const left = await rowsNamingAccount(ctx.store(), reader.id);
    assert.deepEqual(
      Object.entries(left).filter(([, n]) => n > 0),
      [],
    );
    assert.equal((await api(reader.apiKey)).a[0], 401);

    // The last administrator, with others around, is told to name another first.
    await adminClient.get('/settings/account');
    const refused = await adminClient.post('/settings/account/delete', {
      confirm: (await accountById(ctx.store().db, admin.id))?.name ?? '',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /last administrator/);
  });
});
