/**
 * `tidings client create|list|revoke` (issue 35, point 1), in-process on both engines: `--json` prints the
 * id and the secret once; the secret is stored hashed and never listed; KOReader signs in with them; a
 * revoked client's token stops working at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { operatorAccount } from '../accounts/authorize.js';
import { operatorSetPassword } from '../accounts/passwords.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { KoreaderClient } from '../test/wallabagClients.js';

await describeEachEngine('tidings client', (ctx) => {
  const cli = cliOn(() => ctx.url(), { LOG_LEVEL: 'silent' });
  let app: FastifyInstance;
  let server = '';
  before(async () => {
    app = testServer(ctx.store());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    server = `http://127.0.0.1:${address.port}`;
  });
  after(() => app.close());

  test('create --json, sign in with it, list without the secret, revoke', async () => {
    const account = await newAccount(ctx.store());
    await operatorSetPassword(
      ctx.store(),
      await operatorAccount(ctx.store(), account.id),
      'a long password',
      new Date(),
    );
    const made = await cli('client', 'create', '--account', String(account.id), '--name', 'Kobo', '--json');
    assert.equal(made.code, 0, made.err.join('\n'));
    assert.equal(made.out.length, 1);
    const { clientId, clientSecret } = JSON.parse(made.out[0] ?? '') as {
      clientId: string;
      clientSecret: string;
    };
    assert.match(clientSecret, /^[A-Za-z0-9_-]{43}$/);
    const stored = await ctx
      .store()
      .db.selectFrom('api_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .execute();
    assert.equal(stored.length, 1);
    assert.ok(!JSON.stringify(stored).includes(clientSecret), 'only the hash is stored');

    const name = (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow()
    ).name;
    const ko = new KoreaderClient({
      server,
      clientId,
      clientSecret,
      username: name,
      password: 'a long password',
    });
    assert.equal((await ko.getBearerToken()).status, 200);
    assert.equal((await ko.get('/api/entries.json')).status, 200);

    const listed = await cli('client', 'list', '--account', String(account.id));
    assert.equal(listed.code, 0);
    assert.match(listed.out.join('\n'), new RegExp(`Kobo\\t${clientId}`));
    assert.ok(!listed.out.join('\n').includes(clientSecret));
    const json = await cli('client', 'list', '--account', String(account.id), '--json');
    const row = JSON.parse(json.out[0] ?? '') as { id: number; last_used_at: string | null };
    assert.notEqual(row.last_used_at, null);

    const plain = await cli('client', 'create', '--account', String(account.id), '--name', 'Phone');
    assert.match(plain.out.join('\n'), /Client secret, shown only this once: [A-Za-z0-9_-]{43}/);

    const revoked = await cli('client', 'revoke', '--account', String(account.id), String(row.id));
    assert.equal(revoked.code, 0, revoked.err.join('\n'));
    assert.equal((await ko.get('/api/entries.json')).status, 401);
    const again = await cli('client', 'revoke', '--account', String(account.id), String(row.id));
    assert.notEqual(again.code, 0);
  });

  test('a name is required and bounded', async () => {
    const account = await newAccount(ctx.store());
    const long = await cli('client', 'create', '--account', String(account.id), '--name', 'x'.repeat(101));
    assert.notEqual(long.code, 0);
    const none = await cli('client', 'create', '--account', '999999', '--name', 'Kobo');
    assert.notEqual(none.code, 0);
  });
});
