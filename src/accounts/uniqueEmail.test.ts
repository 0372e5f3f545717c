import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { isTidingsError } from '../errors.js';
import { runCli } from '../cli/run.js';
import { accountById } from '../store/accounts.js';
import { describeEachEngine } from '../test/harness.js';
import { WebClient, webServer } from '../test/webClient.js';
import { changeAccountSettings } from './changeSettings.js';
import { acceptInvitation, invitationFor, inviteAccount } from './invitations.js';
import { hashesToTry, setAccountPassword, signInWithPassword } from './passwords.js';
import { createAccountWithKey } from './service.js';

/**
 * E-mail addresses are unique across accounts whatever their case (issue 25, F7): every service that sets
 * one refuses another account's with `email_taken`, each transport says so, and an address names one
 * account for a password sign-in.
 */
const taken = (err: unknown): boolean => isTidingsError(err, 'email_taken');

await describeEachEngine('unique e-mail addresses', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  test('creating, changing and inviting refuse an address another account has, in any case', async () => {
    const store = ctx.store();
    const ada = await createAccountWithKey(store, { name: 'Ada', email: 'Ada@Example.org' });
    await assert.rejects(createAccountWithKey(store, { name: 'Other', email: 'ada@example.ORG' }), taken);
    assert.equal(
      (await store.db.selectFrom('accounts').select('id').where('name', '=', 'Other').execute()).length,
      0,
      'nothing of the refused account is left',
    );

    const bob = await createAccountWithKey(store, { name: 'Bob', email: 'bob@example.org' });
    await assert.rejects(changeAccountSettings(store, bob.account.id, { email: 'ADA@example.org' }), taken);
    assert.equal((await accountById(store.db, bob.account.id))?.email, 'bob@example.org', 'unchanged');
    // An account may keep (or re-case) its own address, and give it up for another to take.
    await changeAccountSettings(store, ada.account.id, { email: 'ada@example.org' });
    await changeAccountSettings(store, ada.account.id, { email: null });
    await changeAccountSettings(store, bob.account.id, { email: 'ada@example.org' });
    await changeAccountSettings(store, ada.account.id, { email: 'ada2@example.org' });

    await assert.rejects(inviteAccount(store, ada.account.id, { days: 7, email: 'Ada2@example.org' }), taken);
    const { token } = await inviteAccount(store, ada.account.id, { days: 7, email: 'cy@example.org' });
    await assert.rejects(acceptInvitation(store, token, { name: 'Cy', email: 'ADA@example.org' }), taken);
    assert.equal((await invitationFor(store, token)).state, 'open', 'the invitation is still usable');
    await acceptInvitation(store, token, { name: 'Cy', email: 'cy@example.org' });
  });

  test('the web forms answer 409 with the reason and keep what was typed', async () => {
    const store = ctx.store();
    await createAccountWithKey(store, { name: 'Web one', email: 'web@example.org' });
    const two = await createAccountWithKey(store, { name: 'Web two' });
    const client = new WebClient(app);
    await client.signIn(two.apiKey);
    await client.get('/settings');
    const res = await client.post('/settings', {
      timezone: 'UTC',
      time: '07:00',
      days: 'mon',
      max_items: '100',
      email: 'WEB@example.org',
    });
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.body, /That e-mail address is already used by another account\./);
    assert.match(res.body, /value="WEB@example\.org"/);
    assert.equal((await accountById(store.db, two.account.id))?.email, null);
  });

  test('the CLI refuses it with exit status 2 and the reason', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const cli = (...args: string[]) =>
      runCli(args, {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        env: { DATABASE_URL: ctx.url(), TIDINGS_BASE_URL: 'https://tidings.example' },
      });
    assert.equal(await cli('account', 'create', '--name', 'Cli', '--email', 'cli@example.org'), 0);
    assert.equal(await cli('account', 'create', '--name', 'Cli 2', '--email', 'CLI@example.org'), 2);
    assert.match(err.join('\n'), /e-mail address is already used by another account/);
    const other = await createAccountWithKey(ctx.store(), { name: 'Cli 3' });
    const code = await cli(
      'account',
      'set',
      '--account',
      String(other.account.id),
      '--email',
      'Cli@Example.org',
    );
    assert.equal(code, 2, err.join('\n'));
  });

  test('an address names one account for a password sign-in, before any account of that name', async () => {
    const store = ctx.store();
    const owner = await createAccountWithKey(store, { name: 'Named', email: 'who@example.org' });
    const namesake = await createAccountWithKey(store, { name: 'WHO@example.org' });
    const at = new Date();
    for (const [id, password] of [
      [owner.account.id, 'the owner password'],
      [namesake.account.id, 'the namesake password'],
    ] as const) {
      await setAccountPassword(store, id, { current: null, next: password, keepSessionId: null }, at);
    }
    const signedIn = await signInWithPassword(store, 'who@EXAMPLE.org', 'the owner password', at);
    assert.ok(signedIn !== null && 'accountId' in signedIn);
    assert.equal(signedIn.accountId, owner.account.id);
    // Only the address's account is tried: one verification, whatever else the identifier names.
    assert.equal(await signInWithPassword(store, 'who@example.org', 'the namesake password', at), null);
  });
});

test('hashesToTry: an address is one check (none without a password); a name, each of its accounts', () => {
  const c = (id: number, hash: string | null, byEmail: boolean) => ({ id, passwordHash: hash, byEmail });
  assert.deepEqual(
    hashesToTry([c(1, 'h1', false), c(2, 'h2', true), c(3, 'h3', false)]).map((x) => x.id),
    [2],
  );
  assert.deepEqual(hashesToTry([c(1, 'h1', false), c(2, null, true)]), []);
  assert.deepEqual(
    hashesToTry([c(1, 'h1', false), c(2, null, false), c(3, 'h3', false)]).map((x) => x.id),
    [1, 3],
  );
  assert.deepEqual(hashesToTry([]), []);
});
