import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { issueKey } from '../../accounts/apiKeys.js';
import { revokeApiKey } from '../../store/apiKeys.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, csrfIn, setCookies, webServer } from '../../test/webClient.js';
import { InvalidKeyLimiter } from '../invalidKeyLimiter.js';
import { STYLESHEET_PATH } from './stylesheet.js';

const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

await describeEachEngine('web app: sessions and security', (ctx) => {
  let app: FastifyInstance;
  let account: Awaited<ReturnType<typeof newAccount>>;
  let clock = 1_000_000;

  before(async () => {
    app = webServer(ctx.store(), {
      signInLimiter: new InvalidKeyLimiter(10, 15 * 60_000, 1000, () => clock),
    });
    await app.ready();
    account = await newAccount(ctx.store());
  });
  after(() => app.close());

  test('pages carry a strict CSP, nosniff, a referrer policy, no-store; the stylesheet is cached for a year', async () => {
    const client = new WebClient(app);
    const res = await client.get('/sign-in');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    // The sign-in page loads the passkey script (a same-origin file): its policy allows that, nothing more.
    assert.equal(res.headers['content-security-policy'], `${CSP}; script-src 'self'; connect-src 'self'`);
    assert.equal((await client.get('/no-such-page')).headers['content-security-policy'], CSP);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(res.body.includes(`href="${STYLESHEET_PATH}"`));
    assert.doesNotMatch(
      res.body.replace(/<script src="\/static\/passkeys\.[0-9a-f]{12}\.js" defer><\/script>/, ''),
      /<script|\sstyle=|\son[a-z]+=/i,
      'no inline scripts, inline styles or handlers',
    );

    const css = await client.get(STYLESHEET_PATH);
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(STYLESHEET_PATH, /^\/static\/app\.[0-9a-f]{12}\.css$/);
    assert.equal((await client.get('/static/app.000000000000.css')).statusCode, 404);
  });

  test('signed out: / and every page lead to the sign-in page, which comes back to the page asked for', async () => {
    const client = new WebClient(app);
    const home = await client.get('/');
    assert.equal(home.statusCode, 303);
    assert.equal(home.headers.location, '/sign-in');
    for (const path of ['/queue', '/feeds', '/digests', '/settings', '/keys', '/save']) {
      const res = await client.get(path);
      assert.equal(res.statusCode, 303, path);
      assert.equal(res.headers.location, `/sign-in?next=${encodeURIComponent(path)}`);
    }
    const post = await client.post('/queue', { url: 'https://example.com/' });
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, '/sign-in?notice=ended');

    await client.get('/sign-in?next=%2Fkeys');
    const signIn = await client.post('/sign-in', { key: account.apiKey, next: '/keys' });
    assert.equal(signIn.statusCode, 303);
    assert.equal(signIn.headers.location, '/keys');
    // Never to another site.
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const fresh = new WebClient(app);
      await fresh.get('/sign-in');
      const res = await fresh.post('/sign-in', { key: account.apiKey, next });
      assert.equal(res.headers.location, '/queue', next);
    }
  });

  test('the session cookie is HttpOnly and SameSite=Lax; Secure with a __Host- name behind https', async () => {
    const client = new WebClient(app);
    await client.get('/sign-in');
    const res = await client.post('/sign-in', { key: account.apiKey });
    const line = setCookies(res).find((l) => l.startsWith('tidings_session='));
    assert.ok(line !== undefined, setCookies(res).join(' | '));
    assert.match(line, /; HttpOnly/);
    assert.match(line, /; SameSite=Lax/);
    assert.match(line, /; Path=\//);
    assert.doesNotMatch(line, /Secure/);
    assert.equal(setCookies(res).filter((l) => l.startsWith('tidings_session=')).length, 1);

    const https = webServer(ctx.store(), { baseUrl: 'https://tidings.example' });
    try {
      const secure = new WebClient(https);
      const form = await secure.get('/sign-in');
      assert.ok(setCookies(form).some((l) => l.startsWith('__Host-tidings_signin=') && /; Secure/.test(l)));
      const signedIn = await secure.post('/sign-in', { key: account.apiKey });
      const cookie = setCookies(signedIn).find((l) => l.startsWith('__Host-tidings_session='));
      assert.ok(cookie !== undefined);
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /; HttpOnly/);
      assert.equal((await secure.get('/queue')).statusCode, 200);
    } finally {
      await https.close();
    }
  });

  test('sign-in refuses a wrong key, an empty one, and a form without its token', async () => {
    const client = new WebClient(app, '10.1.0.1');
    await client.get('/sign-in');
    const wrong = await client.post('/sign-in', { key: `tdg_${'0'.repeat(76)}` });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /That key is not valid/);
    const empty = await client.post('/sign-in', { key: '' });
    assert.equal(empty.statusCode, 401);

    const noToken = await client.post('/sign-in', { key: account.apiKey, _csrf: null });
    assert.equal(noToken.statusCode, 403);
    assert.match(noToken.body, /expired/);
    const otherToken = await client.post('/sign-in', { key: account.apiKey, _csrf: 'x'.repeat(43) });
    assert.equal(otherToken.statusCode, 403);
    // A form from another browser (its cookie is not this one's) does not work either.
    const stranger = new WebClient(app, '10.1.0.1');
    const res = await stranger.post('/sign-in', { key: account.apiKey, _csrf: client.csrf });
    assert.equal(res.statusCode, 403);
    assert.equal(stranger.cookies.has('tidings_session'), false);
  });

  test('ten failed sign-ins from an address: the eleventh is refused with 429, right key or not', async () => {
    const client = new WebClient(app, '10.2.0.1');
    await client.get('/sign-in');
    for (let i = 0; i < 10; i++) {
      assert.equal((await client.post('/sign-in', { key: 'tdg_wrong' })).statusCode, 401, `attempt ${i + 1}`);
    }
    const limited = await client.post('/sign-in', { key: account.apiKey });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '900');
    assert.match(limited.body, /Too many failed sign-ins/);
    assert.equal(client.cookies.has('tidings_session'), false);

    const elsewhere = new WebClient(app, '10.2.0.2');
    await elsewhere.signIn(account.apiKey);

    clock += 15 * 60_000;
    await client.get('/sign-in');
    assert.equal((await client.post('/sign-in', { key: account.apiKey })).statusCode, 303);
  });

  test('signing out ends the session on the server: the old cookie no longer opens a page', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const cookie = client.cookies.get('tidings_session') ?? '';
    const out = await client.post('/sign-out');
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/sign-in?notice=signed_out');
    assert.equal(client.cookies.has('tidings_session'), false);
    const replay = await app.inject({
      method: 'GET',
      url: '/queue',
      headers: { cookie: `tidings_session=${cookie}` },
    });
    assert.equal(replay.statusCode, 303);
    assert.match(String(replay.headers.location), /^\/sign-in/);
  });

  test('sign-out without the session token is refused', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const res = await client.post('/sign-out', { _csrf: null });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/queue');
    assert.equal((await client.get('/queue')).statusCode, 200);
  });

  test('revoking the key a browser signed in with ends its session; other keys’ sessions go on', async () => {
    const other = await issueKey(ctx.store(), account.id, 'second');
    assert.ok(other !== null);
    const a = new WebClient(app);
    await a.signIn(other.apiKey);
    const b = new WebClient(app);
    await b.signIn(account.apiKey);
    assert.ok(await revokeApiKey(ctx.store().db, other.keyInfo.id));
    assert.equal((await a.get('/queue')).statusCode, 303);
    assert.equal(a.cookies.has('tidings_session'), false, 'the dead cookie is cleared');
    assert.equal((await b.get('/queue')).statusCode, 200);
  });

  test('a session is moved on after a day of use, and ends after 30 days without one', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const token = client.cookies.get('tidings_session') ?? '';
    const { sql } = await import('kysely');
    // As if signed in 29.5 days ago: the next page moves the end 30 days on and sets the cookie again.
    const soon = new Date(Date.now() + 12 * 3600_000).toISOString();
    await sql`update web_sessions set expires_at = ${soon}`.execute(ctx.store().db);
    const renewed = await client.get('/queue');
    assert.equal(renewed.statusCode, 200);
    assert.ok(
      setCookies(renewed).some((l) => l.startsWith(`tidings_session=${token}`) && /Max-Age=259\d{4}/.test(l)),
    );
    const past = new Date(Date.now() - 1000).toISOString();
    await sql`update web_sessions set expires_at = ${past}`.execute(ctx.store().db);
    assert.equal((await client.get('/queue')).statusCode, 303);
  });

  test('unknown paths: an HTML page for browsers, the JSON error for everything else and under /api', async () => {
    const page = await app.inject({ method: 'GET', url: '/no-such-page', headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['content-security-policy'], CSP);
    assert.match(page.body, /There is no page at this address/);
    const json = await app.inject({ method: 'GET', url: '/no-such-page' });
    assert.equal(json.statusCode, 404);
    assert.deepEqual(Object.keys(json.json()).sort(), ['code', 'message']);
    const api = await app.inject({
      method: 'GET',
      url: '/api/v2/articles',
      headers: { accept: 'text/html' },
    });
    assert.match(String(api.headers['content-type']), /^application\/json/);
  });

  test('page errors are HTML: a body over 64 KiB, a malformed id', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const big = await client.post('/queue', { url: `https://example.com/?${'x'.repeat(70_000)}` });
    assert.equal(big.statusCode, 413);
    assert.match(String(big.headers['content-type']), /^text\/html/);
    const badId = await client.post('/queue/abc/remove', {
      _csrf: csrfIn((await client.get('/queue')).body),
    });
    assert.equal(badId.statusCode, 404);
    assert.match(String(badId.headers['content-type']), /^text\/html/);
  });
});
