/**
 * Sign-in limits that hold (issue 25, F2, F4, F7): attempts sent at once are counted before any password is
 * checked; wrong passwords for one account from many addresses hold that account's password sign-in, with
 * a backoff capped at 15 minutes, while its key and passkeys still sign in; the passkey options are limited
 * per address and their expired challenges purged. Through a real server on loopback, on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { operatorAccount } from '../../accounts/authorize.js';
import { PASSWORD_HOLD_POLICY, PasswordHolds } from '../../accounts/passwordHolds.js';
import { operatorSetPassword } from '../../accounts/passwords.js';
import { CHALLENGE_SECONDS } from '../../accounts/passkeys.js';
import { createAccountWithKey } from '../../accounts/service.js';
import { describeEachEngine } from '../../test/harness.js';
import {
  type HttpAnswer,
  openSignInForm,
  postForm,
  signInServer,
  statusCounts,
} from '../../test/signInHttp.js';
import { PASSKEY_OPTIONS_PER_MINUTE } from './pages/signIn.js';

const PASSWORD = 'the one right password';

await describeEachEngine('sign-in limits that hold', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let clock = Date.now();
  let n = 0;

  before(async () => {
    // One hop of proxy (the loopback socket): each test's requests say which client they are.
    ({ app, base } = await signInServer(ctx.store(), { trustProxy: 1, clock: () => clock }));
  });
  after(() => app.close());

  const account = async (): Promise<{ email: string; apiKey: string }> => {
    const email = `held${++n}.${ctx.engine}@example.org`;
    const { account: created, apiKey } = await createAccountWithKey(ctx.store(), {
      name: `held ${n}`,
      email,
    });
    const id = await operatorAccount(ctx.store(), created.id);
    await operatorSetPassword(ctx.store(), id, PASSWORD, new Date(clock));
    return { email, apiKey };
  };

  const from = (address: string): Record<string, string> => ({ 'x-forwarded-for': address });

  const password = async (address: string, identifier: string, secret: string): Promise<HttpAnswer> => {
    const form = await openSignInForm(base, from(address));
    return postForm(base, '/sign-in/password', form, { identifier, password: secret }, from(address));
  };

  test('fifty wrong passwords sent at once from one address: ten are checked, the rest refused unchecked', async () => {
    const a = await account();
    const form = await openSignInForm(base, from('198.51.100.1'));
    const wrong = (i: number): Promise<HttpAnswer> =>
      postForm(
        base,
        '/sign-in/password',
        form,
        { identifier: `nobody${i}.${ctx.engine}@example.org`, password: `wrong ${i}` },
        from('198.51.100.1'),
      );
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => wrong(i)));
    // A 401 is an answer after a password check; a 429 was refused before any.
    assert.deepEqual(statusCounts(answers), { 401: 10, 429: 40 });
    for (const refused of answers.filter((r) => r.status === 429)) {
      assert.match(refused.body, /Too many failed sign-ins from your network/);
      assert.equal(refused.headers.get('retry-after'), '900');
    }
    const right = await postForm(
      base,
      '/sign-in/password',
      form,
      { identifier: a.email, password: PASSWORD },
      from('198.51.100.1'),
    );
    assert.equal(right.status, 429);
    assert.equal(
      right.headers.getSetCookie().some((c) => c.startsWith('tidings_session=')),
      false,
    );
    clock += 15 * 60_000;
    const later = await postForm(
      base,
      '/sign-in/password',
      form,
      { identifier: a.email, password: PASSWORD },
      from('198.51.100.1'),
    );
    assert.equal(later.status, 303);
  });

  test('a right password gives its attempt back: signing in often from one address is never limited', async () => {
    const a = await account();
    for (let i = 0; i < 11; i++) {
      assert.equal((await password('198.51.100.2', a.email, PASSWORD)).status, 303, `sign-in ${i + 1}`);
    }
  });

  test('a hundred wrong passwords from ten addresses at once, then the right one: held per account', async () => {
    const a = await account();
    const forms = await Promise.all(
      Array.from({ length: 10 }, (_, i) => openSignInForm(base, from(`203.0.113.${i + 1}`))),
    );
    const attempts = forms.flatMap((form, i) =>
      Array.from({ length: 10 }, (_, j) =>
        postForm(
          base,
          '/sign-in/password',
          form,
          { identifier: a.email, password: `guess ${i}.${j}` },
          from(`203.0.113.${i + 1}`),
        ),
      ),
    );
    const answers = await Promise.all(attempts);
    const free = PASSWORD_HOLD_POLICY.free;
    assert.deepEqual(statusCounts(answers), { 401: free, 429: 100 - free });
    assert.ok(answers.some((r) => /Password sign-in for this account is paused/.test(r.body)));

    // The owner, from an address of their own: the password is held, for at most 15 minutes…
    const owner = await password('192.0.2.50', a.email, PASSWORD);
    assert.equal(owner.status, 429);
    assert.match(
      owner.body,
      /paused for 1 minute after several wrong passwords\. A passkey or an API key still signs you in now/,
    );
    const wait = Number(owner.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 15 * 60, `Retry-After ${wait}`);
    // …while the key signs in at once, and the passkey options are given.
    const keyForm = await openSignInForm(base, from('192.0.2.50'));
    assert.equal(
      (await postForm(base, '/sign-in', keyForm, { key: a.apiKey }, from('192.0.2.50'))).status,
      303,
    );
    const options = await postForm(base, '/sign-in/passkey/options', keyForm, {}, from('192.0.2.50'));
    assert.equal(options.status, 200, options.body);

    clock += wait * 1000;
    assert.equal((await password('192.0.2.50', a.email, PASSWORD)).status, 303);
    // Signed in: the failures are forgotten, and a mistyped password is a plain 401 again.
    assert.equal((await password('192.0.2.51', a.email, 'a typo')).status, 401);
  });

  test('an identifier that names no account is held the same way (a hold tells nothing)', async () => {
    const nobody = `nobody.${ctx.engine}@example.org`;
    const answers: HttpAnswer[] = [];
    for (let i = 0; i < PASSWORD_HOLD_POLICY.free + 1; i++) {
      answers.push(await password(`192.0.2.${60 + i}`, nobody, `guess ${i}`));
    }
    assert.deepEqual(statusCounts(answers), { 401: PASSWORD_HOLD_POLICY.free, 429: 1 });
    assert.match(answers.at(-1)?.body ?? '', /Password sign-in for this account is paused/);
    clock += 15 * 60_000;
  });

  test('wrong current passwords sent at once under Settings: ten are checked', async () => {
    const a = await account();
    const address = '198.51.100.3';
    const form = await openSignInForm(base, from(address));
    const signedIn = await postForm(base, '/sign-in', form, { key: a.apiKey }, from(address));
    assert.equal(signedIn.status, 303);
    const session = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0] ?? '')
      .find((c) => c.startsWith('tidings_session='));
    assert.ok(session !== undefined);
    const page = await fetch(`${base}/settings/sign-in`, { headers: { cookie: session, ...from(address) } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postForm(
          base,
          '/settings/sign-in/password/remove',
          { cookie: session, csrf },
          { current: `not it ${i}` },
          from(address),
        ),
      ),
    );
    assert.deepEqual(statusCounts(answers), { 403: 10, 429: 20 });
    clock += 15 * 60_000;
  });

  test('passkey options: a few a minute per address, then 429 with Retry-After; expired challenges purged', async () => {
    const challenges = async (): Promise<number> =>
      (await ctx.store().db.selectFrom('webauthn_challenges').select('id').execute()).length;
    const forms = await Promise.all(
      Array.from({ length: PASSKEY_OPTIONS_PER_MINUTE + 10 }, () => openSignInForm(base, from('192.0.2.99'))),
    );
    const answers = await Promise.all(
      forms.map((form) => postForm(base, '/sign-in/passkey/options', form, {}, from('192.0.2.99'))),
    );
    assert.deepEqual(statusCounts(answers), { 200: PASSKEY_OPTIONS_PER_MINUTE, 429: 10 });
    const refused = answers.find((r) => r.status === 429);
    assert.ok(refused !== undefined);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.equal(refused.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal((JSON.parse(refused.body) as { code?: string }).code, 'too_many_requests');
    // Older challenges (the other tests', minutes ago) had expired and went with the first of these.
    assert.equal(await challenges(), PASSKEY_OPTIONS_PER_MINUTE);
    // Another address is not held back.
    const other = await openSignInForm(base, from('192.0.2.98'));
    assert.equal(
      (await postForm(base, '/sign-in/passkey/options', other, {}, from('192.0.2.98'))).status,
      200,
    );
    // Once the challenges have expired, the next options request leaves only its own.
    clock += (CHALLENGE_SECONDS + 1) * 1000;
    const fresh = await openSignInForm(base, from('192.0.2.99'));
    assert.equal(
      (await postForm(base, '/sign-in/passkey/options', fresh, {}, from('192.0.2.99'))).status,
      200,
    );
    assert.equal(await challenges(), 1);
  });
});

test('the per-account backoff: five free, then 1, 2, 4, 8 minutes, never more than 15; forgotten after an hour', () => {
  let t = 0;
  const holds = new PasswordHolds(() => t);
  const key = 'account:1' as const;
  const waits: number[] = [];
  let checked = 0;
  while (waits.length < 6) {
    const wait = holds.reserve([key]);
    if (wait === 0) checked++;
    else {
      waits.push(wait);
      t += wait * 1000;
    }
  }
  assert.deepEqual(waits, [60, 120, 240, 480, 900, 900]);
  assert.equal(checked, PASSWORD_HOLD_POLICY.free + 5, 'five free, then one after each hold');
  // An hour after the last attempt (and its hold), the account starts afresh: five free again.
  t += 60 * 60_000;
  for (let i = 0; i < PASSWORD_HOLD_POLICY.free; i++) assert.equal(holds.reserve([key]), 0);
  holds.succeeded(key);
  assert.equal(holds.reserve([key]), 0);
});

test('the per-account counts stay bounded under a flood of identifiers, forgetting the oldest', () => {
  const t = 0;
  const holds = new PasswordHolds(() => t, { ...PASSWORD_HOLD_POLICY, free: 1, maxKeys: 100 });
  assert.equal(holds.reserve(['identifier:first']), 0);
  assert.ok(holds.reserve(['identifier:first']) > 0, 'held after its one free attempt');
  for (let i = 0; i < 1000; i++) holds.reserve([`identifier:flood ${i}`]);
  // The flood pushed the oldest out: the first identifier starts afresh rather than memory growing.
  assert.equal(holds.reserve(['identifier:first']), 0);
  assert.ok(holds.reserve(['identifier:flood 999']) > 0, 'the newest are still held');
});
