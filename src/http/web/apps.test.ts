import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { operatorSetPassword } from '../../accounts/passwords.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { KoreaderClient } from '../../test/wallabagClients.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Settings → Apps (issue 35, point 1): an app added shows the values to type into it, its secret once;
 * KOReader signs in with them against the same server; revoking it signs the app out at once; another
 * account cannot revoke it.
 */

await describeEachEngine('web app: apps', (ctx) => {
  let app: FastifyInstance;
  let server = '';
  before(async () => {
    app = webServer(ctx.store());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    server = `http://127.0.0.1:${address.port}`;
  });
  after(() => app.close());

  test('add an app, sign it in with the values shown, revoke it', async () => {
    const account = await newAccount(ctx.store());
    await operatorSetPassword(ctx.store(), account.id, 'password for apps', new Date());
    const web = new WebClient(app);
    await web.signIn(account.apiKey);
    const empty = await web.get('/settings/apps');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /None yet/);
    assert.match((await web.get('/settings')).body, /href="\/settings\/apps"/);

    const made = await web.post('/settings/apps', { name: ' my   Kobo ' });
    assert.equal(made.statusCode, 200);
    assert.equal(made.headers['cache-control'], 'no-store');
    const value = (id: string): string =>
      new RegExp(`id="${id}" type="text" readonly value="([^"]*)"`).exec(made.body)?.[1] ?? '';
    const clientId = value('app-client-id');
    const secret = value('app-client-secret');
    const username = value('app-username');
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    assert.match(made.body, /Type these into “my Kobo”/);
    assert.equal(value('app-server'), 'http://127.0.0.1:8080');

    const ko = new KoreaderClient({
      server,
      clientId,
      clientSecret: secret,
      username,
      password: 'password for apps',
    });
    assert.equal((await ko.getBearerToken()).status, 200);
    const listed = await web.get('/settings/apps');
    assert.ok(listed.body.includes(clientId));
    assert.ok(!listed.body.includes(secret), 'the secret is shown once');
    assert.match(listed.body, /last signed in/);

    const id = /action="\/settings\/apps\/(\d+)\/revoke"/.exec(listed.body)?.[1];
    assert.ok(id !== undefined);
    const other = new WebClient(app);
    await other.signIn((await newAccount(ctx.store())).apiKey);
    await other.get('/settings/apps');
    assert.equal((await other.post(`/settings/apps/${id}/revoke`)).statusCode, 404);
    assert.equal((await ko.get('/api/entries.json')).status, 200);

    const revoked = await web.post(`/settings/apps/${id}/revoke`);
    assert.equal(revoked.statusCode, 303);
    assert.equal((await ko.get('/api/entries.json')).status, 401);
    assert.match((await web.get('/settings/apps?notice=revoked')).body, /App revoked/);
  });

  test('a name is required; the form needs its CSRF token', async () => {
    const account = await newAccount(ctx.store());
    const web = new WebClient(app);
    await web.signIn(account.apiKey);
    await web.get('/settings/apps');
    assert.equal((await web.post('/settings/apps', { name: '   ' })).statusCode, 400);
    assert.equal((await web.post('/settings/apps', { name: 'x', _csrf: 'wrong' })).statusCode, 403);
  });
});
