/**
 * Signing in with a password on the web (issue 13): set it under Settings, Sign-in; sign in with the
 * e-mail address or the account name; one message and a similar time for a wrong password and an unknown
 * identifier; one rate limit for every method; CSRF; changing and removing it; never in the log.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createAccountWithKey } from '../../accounts/service.js';
import { buildServer } from '../server.js';
import { describeEachEngine } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { InvalidKeyLimiter } from '../invalidKeyLimiter.js';
import { PASSWORD_REFUSED } from './pages/signIn.js';

const PASSWORD = 'correct horse battery staple';

await describeEachEngine('web app: passwords', (ctx) => {
  let app: FastifyInstance;
  let clock = 1_000_000;
  let n = 0;
  const lines: string[] = [];

  /** An account with an e-mail address and its first key. */
  const account = async (): Promise<{ name: string; email: string; apiKey: string }> => {
    const name = `reader ${++n} ${ctx.engine}`;
    const email = `Reader${n}.${ctx.engine}@Example.org`;
    const { apiKey } = await createAccountWithKey(ctx.store(), { name, email });
    return { name, email, apiKey };
  };

  /** Signs in with the key, sets a password under Settings, Sign-in; returns the signed-in client. */
  const withPassword = async (apiKey: string, address: string): Promise<WebClient> => {
    const client = new WebClient(app, address);
    await client.signIn(apiKey);
    const page = await client.get('/settings/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /You have no password yet/);
    const set = await client.post('/settings/sign-in/password', { password: PASSWORD, confirm: PASSWORD });
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, '/settings/sign-in?notice=password_set');
    assert.match((await client.get('/settings/sign-in')).body, /You have a password, set/);
    return client;
  };

  const signIn = async (client: WebClient, identifier: string, password: string) => {
    await client.get('/sign-in');
    return client.post('/sign-in/password', { identifier, password });
  };

  before(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    app = buildServer({
      config: { trustProxy: false, queueLimit: 10_000, baseUrl: 'http://127.0.0.1:8080' },
      store: ctx.store(),
      logger: pino({ level: 'trace' }, stream),
      signInLimiter: new InvalidKeyLimiter(10, 15 * 60_000, 1000, () => clock),
    });
    await app.ready();
  });
  after(() => app.close());

  test('set a password, then sign in with the e-mail address (any case) or the account name', async () => {
    const a = await account();
    await withPassword(a.apiKey, '10.10.0.1');
    for (const identifier of [a.email, a.email.toLowerCase(), ` ${a.name.toUpperCase()} `]) {
      const client = new WebClient(app, '10.10.0.2');
      await client.get('/sign-in?next=%2Fkeys');
      const res = await client.post('/sign-in/password', { identifier, password: PASSWORD, next: '/keys' });
      assert.equal(res.statusCode, 303, identifier);
      assert.equal(res.headers.location, '/keys');
      const keys = await client.get('/keys');
      assert.equal(keys.statusCode, 200);
      assert.ok(keys.body.includes(a.name));
    }
    // The password itself is never logged (request lines, bodies, errors: nothing).
    assert.ok(lines.length > 0, 'the server logged its requests');
    assert.ok(!lines.some((l) => l.includes(PASSWORD)));
  });

  test('a wrong password, an unknown identifier and an account without a password: one message, similar time', async () => {
    const a = await account();
    await withPassword(a.apiKey, '10.11.0.1');
    const b = await account(); // no password
    const timed = async (identifier: string, password: string): Promise<{ ms: number; body: string }> => {
      const client = new WebClient(app, '10.11.0.2');
      await client.get('/sign-in');
      const started = performance.now();
      const res = await client.post('/sign-in/password', { identifier, password });
      const ms = performance.now() - started;
      assert.equal(res.statusCode, 401, identifier);
      assert.equal(client.cookies.has('tidings_session'), false);
      return { ms, body: res.body };
    };
    const wrong = await timed(a.email, 'not the password at all');
    const unknown = await timed('nobody@example.org', PASSWORD);
    const none = await timed(b.email, PASSWORD);
    for (const r of [wrong, unknown, none]) {
      assert.ok(r.body.includes(PASSWORD_REFUSED.replace(/’/g, '&#39;').slice(0, 40)), r.body);
      // The form keeps what was typed as the identifier, never the password.
      assert.ok(!r.body.includes(PASSWORD));
    }
    // Every answer costs a scrypt verification (the unknown ones against a dummy hash): none is much faster.
    const slowest = Math.max(wrong.ms, unknown.ms, none.ms);
    assert.ok(Math.min(unknown.ms, none.ms) > slowest / 5, `${wrong.ms} / ${unknown.ms} / ${none.ms} ms`);
    clock += 15 * 60_000; // these failures do not weigh on the next tests
  });

  test('one limit for every method: failed keys, passwords and passkeys count together', async () => {
    const a = await account();
    await withPassword(a.apiKey, '10.12.0.1');
    const client = new WebClient(app, '10.12.0.2');
    await client.get('/sign-in');
    for (let i = 0; i < 4; i++) {
      assert.equal((await client.post('/sign-in', { key: 'tdg_wrong' })).statusCode, 401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await client.post('/sign-in/password', { identifier: a.email, password: `wrong ${i}` });
      assert.equal(res.statusCode, 401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await client.post('/sign-in/passkey', { credential: '{"id":"nope"}' });
      assert.equal(res.statusCode, 401);
      assert.match(res.body, /That passkey did not sign you in/);
    }
    const limited = await client.post('/sign-in/password', { identifier: a.email, password: PASSWORD });
    assert.equal(limited.statusCode, 429);
    assert.match(limited.body, /Too many failed sign-ins/);
    assert.equal((await client.post('/sign-in', { key: a.apiKey })).statusCode, 429);
    const options = await client.post('/sign-in/passkey/options');
    assert.equal(options.statusCode, 429);
    assert.equal((JSON.parse(options.body) as { code: string }).code, 'too_many_sign_ins');
    assert.equal(client.cookies.has('tidings_session'), false);
    // Another address is not held back; once the window has passed, this one signs in again.
    assert.equal((await signIn(new WebClient(app, '10.12.0.3'), a.email, PASSWORD)).statusCode, 303);
    clock += 15 * 60_000;
    assert.equal((await signIn(client, a.email, PASSWORD)).statusCode, 303);
  });

  test('CSRF: sign-in and password forms without their token change nothing', async () => {
    const a = await account();
    const client = await withPassword(a.apiKey, '10.13.0.1');
    const stranger = new WebClient(app, '10.13.0.2');
    await stranger.get('/sign-in');
    const noToken = await stranger.post('/sign-in/password', {
      identifier: a.email,
      password: PASSWORD,
      _csrf: null,
    });
    assert.equal(noToken.statusCode, 403);
    assert.match(noToken.body, /expired/);
    const other = new WebClient(app, '10.13.0.2');
    const crossed = await other.post('/sign-in/password', {
      identifier: a.email,
      password: PASSWORD,
      _csrf: stranger.csrf,
    });
    assert.equal(crossed.statusCode, 403);
    assert.equal(other.cookies.has('tidings_session'), false);

    const change = await client.post('/settings/sign-in/password', {
      current: PASSWORD,
      password: 'an entirely new one',
      confirm: 'an entirely new one',
      _csrf: 'x'.repeat(43),
    });
    assert.equal(change.statusCode, 403);
    const remove = await client.post('/settings/sign-in/password/remove', { current: PASSWORD, _csrf: null });
    assert.equal(remove.statusCode, 403);
    assert.equal((await signIn(new WebClient(app, '10.13.0.3'), a.email, PASSWORD)).statusCode, 303);
  });

  test('changing needs the current password; it signs out the other password sessions; removing it', async () => {
    const a = await account();
    const owner = await withPassword(a.apiKey, '10.14.0.1');
    const other = new WebClient(app, '10.14.0.2');
    assert.equal((await signIn(other, a.name, PASSWORD)).statusCode, 303);
    const keyed = new WebClient(app, '10.14.0.3');
    await keyed.signIn(a.apiKey);

    const NEW = 'a second password, longer';
    const short = await owner.post('/settings/sign-in/password', {
      current: PASSWORD,
      password: 'short',
      confirm: 'short',
    });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 10 characters/);
    const huge = 'x'.repeat(1025);
    assert.equal(
      (await owner.post('/settings/sign-in/password', { current: PASSWORD, password: huge, confirm: huge }))
        .statusCode,
      400,
    );
    const mismatch = await owner.post('/settings/sign-in/password', {
      current: PASSWORD,
      password: NEW,
      confirm: `${NEW}!`,
    });
    assert.equal(mismatch.statusCode, 400);
    assert.match(mismatch.body, /not the same/);
    const wrong = await owner.post('/settings/sign-in/password', {
      current: 'not it at all',
      password: NEW,
      confirm: NEW,
    });
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /current password is not right/);
    const missing = await owner.post('/settings/sign-in/password', { password: NEW, confirm: NEW });
    assert.equal(missing.statusCode, 403);

    const changed = await owner.post('/settings/sign-in/password', {
      current: PASSWORD,
      password: NEW,
      confirm: NEW,
    });
    assert.equal(changed.statusCode, 303);
    // The browser that changed it stays; the one signed in with the old password is out; a key's stays.
    assert.equal((await owner.get('/queue')).statusCode, 200);
    assert.equal((await other.get('/queue')).statusCode, 303);
    assert.equal((await keyed.get('/queue')).statusCode, 200);
    assert.equal((await signIn(new WebClient(app, '10.14.0.4'), a.email, PASSWORD)).statusCode, 401);
    assert.equal((await signIn(new WebClient(app, '10.14.0.4'), a.email, NEW)).statusCode, 303);

    await owner.get('/settings/sign-in');
    assert.equal(
      (await owner.post('/settings/sign-in/password/remove', { current: PASSWORD })).statusCode,
      403,
    );
    const removed = await owner.post('/settings/sign-in/password/remove', { current: NEW });
    assert.equal(removed.statusCode, 303);
    assert.match((await owner.get('/settings/sign-in')).body, /You have no password yet/);
    assert.equal((await signIn(new WebClient(app, '10.14.0.5'), a.email, NEW)).statusCode, 401);
    clock += 15 * 60_000;
  });

  test('the sign-in page offers all three ways, with the passkey script from this origin only', async () => {
    const client = new WebClient(app, '10.15.0.1');
    const res = await client.get('/sign-in');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'; connect-src 'self'$/);
    assert.match(csp, /^default-src 'none'/);
    const src = /<script src="(\/static\/passkeys\.[0-9a-f]{12}\.js)" defer><\/script>/.exec(res.body)?.[1];
    assert.ok(src !== undefined, 'the page loads the passkey script');
    assert.doesNotMatch(res.body.replace(/<script src="[^"]+" defer><\/script>/, ''), /<script|\son[a-z]+=/i);
    for (const text of ['Sign in with password', 'Sign in with key'])
      assert.ok(res.body.includes(text), text);
    // This server's address is an IP address, where no browser offers passkeys: the page says so instead.
    assert.ok(!res.body.includes('Sign in with a passkey'));
    assert.match(
      res.body,
      /Passkeys cannot be used here: a browser offers them only at an address with a name/,
    );
    const script = await client.get(src);
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(script.body, /navigator\.credentials\.get/);
  });
});

/**
 * The sign-in page leads with what can work at its address (issue 25, the newcomer's list): the passkey
 * first where a browser can use one, else the password, with the reason passkeys are not offered.
 */
await describeEachEngine('web app: the sign-in page leads with what works here', (ctx) => {
  const cases = [
    { baseUrl: 'https://tidings.example.org', passkeys: null },
    { baseUrl: 'http://localhost:8080', passkeys: null },
    {
      baseUrl: 'http://tidings.example.org:8080',
      passkeys: /only over https \(or on localhost\), and Tidings is at/,
    },
    { baseUrl: 'http://192.168.1.20:8080', passkeys: /only at an address with a name, and Tidings is at/ },
    { baseUrl: 'https://[2001:db8::1]', passkeys: /only at an address with a name/ },
  ] as const;
  for (const { baseUrl, passkeys } of cases) {
    test(`at ${baseUrl}: ${passkeys === null ? 'the passkey first' : 'the password first, and why no passkeys'}`, async () => {
      const app = webServer(ctx.store(), { baseUrl });
      try {
        const body = (await new WebClient(app, '10.17.0.1').get('/sign-in')).body;
        const password = body.indexOf('With your password');
        const key = body.indexOf('With an API key');
        assert.ok(password > 0 && key > password, 'the password, then the key');
        if (passkeys === null) {
          const passkey = body.indexOf('Sign in with a passkey');
          assert.ok(passkey > 0 && passkey < password, 'the passkey form comes first');
          assert.ok(!body.includes('Passkeys cannot be used here'));
        } else {
          assert.ok(!body.includes('Sign in with a passkey'));
          assert.match(body, passkeys);
          assert.ok(body.indexOf('Passkeys cannot be used here') > key, 'the reason comes after the forms');
          assert.ok(body.includes(`<code>${baseUrl}</code>`));
        }
      } finally {
        await app.close();
      }
    });
  }
});

/** The default server (no injected limiter) has the same routes: a smoke check of the wiring. */
await describeEachEngine('web app: password sign-in wiring', (ctx) => {
  test('an empty form is refused with a message, not an error page', async () => {
    const app = webServer(ctx.store());
    try {
      const client = new WebClient(app, '10.16.0.1');
      await client.get('/sign-in');
      const res = await client.post('/sign-in/password', { identifier: '', password: '' });
      assert.equal(res.statusCode, 401);
      assert.match(res.body, /Enter your email address or account name, and your password/);
    } finally {
      await app.close();
    }
  });
});
