/**
 * Settings, Sign-in over HTTP: the passkey list, rename and delete, each only for the signed-in account;
 * the registration options only with the session's token; deleting the passkey a browser signed in with
 * signs it out.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openSession } from '../../accounts/sessions.js';
import { createPasskey, passkeysOf } from '../../store/passkeys.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

await describeEachEngine('web app: Settings, Sign-in', (ctx) => {
  let app: FastifyInstance;
  let n = 0;

  before(async () => {
    app = webServer(ctx.store(), { baseUrl: 'https://tidings.example.org' });
    await app.ready();
  });
  after(() => app.close());

  /** A passkey row as a registration would store it (the key bytes do not matter here). */
  const passkey = async (accountId: number, name: string): Promise<number> => {
    n++;
    await createPasskey(ctx.store().db, accountId, {
      credentialId: `cred-${ctx.engine}-${n}`,
      publicKey: new Uint8Array([n, 1, 2]),
      counter: 0,
      transports: ['internal'],
      userHandle: `handle-${accountId}`,
      name,
      createdAt: '2026-11-20T10:00:00.000Z',
    });
    const all = await passkeysOf(ctx.store().db, accountId);
    const id = all.find((k) => k.name === name)?.id;
    assert.ok(id !== undefined);
    return id;
  };

  test("another account's passkey can be neither renamed nor deleted; one's own can", async () => {
    const alice = await newAccount(ctx.store());
    const bob = await newAccount(ctx.store());
    const alicePasskey = await passkey(alice.id, 'alice phone');
    const bobClient = new WebClient(app);
    await bobClient.signIn(bob.apiKey);
    const page = await bobClient.get('/settings/sign-in');
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('alice phone'));
    assert.match(page.body, /You have no passkeys yet/);
    assert.equal(
      (await bobClient.post(`/settings/sign-in/passkeys/${alicePasskey}/rename`, { name: 'mine' }))
        .statusCode,
      404,
    );
    assert.equal((await bobClient.post(`/settings/sign-in/passkeys/${alicePasskey}/delete`)).statusCode, 404);
    assert.deepEqual(
      (await passkeysOf(ctx.store().db, alice.id)).map((k) => k.name),
      ['alice phone'],
    );

    const aliceClient = new WebClient(app);
    await aliceClient.signIn(alice.apiKey);
    const list = await aliceClient.get('/settings/sign-in');
    assert.match(list.body, /alice phone/);
    assert.match(list.body, /never used/);
    const empty = await aliceClient.post(`/settings/sign-in/passkeys/${alicePasskey}/rename`, { name: '  ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /1 to 100 characters/);
    const renamed = await aliceClient.post(`/settings/sign-in/passkeys/${alicePasskey}/rename`, {
      name: 'work laptop',
    });
    assert.equal(renamed.statusCode, 303);
    assert.match((await aliceClient.get('/settings/sign-in')).body, /work laptop/);
    const deleted = await aliceClient.post(`/settings/sign-in/passkeys/${alicePasskey}/delete`);
    assert.equal(deleted.headers.location, '/settings/sign-in?notice=passkey_deleted');
    assert.deepEqual(await passkeysOf(ctx.store().db, alice.id), []);
  });

  test('registration options: only with the session token; the base URL is the relying party', async () => {
    const a = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(a.apiKey);
    await client.get('/settings/sign-in');
    const refused = await client.post('/settings/sign-in/passkeys/options', { _csrf: null });
    assert.equal(refused.statusCode, 403);
    const res = await client.post('/settings/sign-in/passkeys/options');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-store');
    const options = JSON.parse(res.body) as {
      rp: { id: string };
      challenge: string;
      authenticatorSelection: { residentKey: string };
    };
    assert.equal(options.rp.id, 'tidings.example.org');
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    // An answer that is not a passkey's is refused, and the form says so.
    const bad = await client.post('/settings/sign-in/passkeys', { name: 'phone', credential: '{"id":1}' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /could not be checked/);
    const late = await client.post('/settings/sign-in/passkeys', { name: 'phone', credential: '{}' });
    assert.match(late.body, /took too long/);
  });

  test('deleting the passkey this browser signed in with signs it out', async () => {
    const a = await newAccount(ctx.store());
    const id = await passkey(a.id, 'the phone');
    // A session as a passkey sign-in opens it (the ceremony itself runs in Chromium in passkeys.browser.test.ts).
    const { token } = await openSession(
      ctx.store(),
      { accountId: a.id, method: 'passkey', passkeyId: id },
      new Date(),
    );
    const client = new WebClient(app);
    client.cookies.set('__Host-tidings_session', token);
    const page = await client.get('/settings/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /this browser signed in with it/);
    const res = await client.post(`/settings/sign-in/passkeys/${id}/delete`);
    assert.equal(res.headers.location, '/sign-in?notice=passkey_deleted');
    assert.equal((await client.get('/queue')).statusCode, 303);
    assert.match((await client.get('/sign-in?notice=passkey_deleted')).body, /You deleted the passkey/);
  });
});
