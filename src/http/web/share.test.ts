import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { codePoints } from '../../lib/text.js';
import { savedUrls } from '../../queue/reads.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { sharedLink } from './pages/share.js';

/**
 * The installable app: the manifest and its icons, and the share target (GET /share shows a filled-in
 * form; only its POST to /queue, with the session's CSRF token, saves).
 */

test('a shared link is found in url, else in text (as Android apps share), else in title', () => {
  assert.deepEqual(
    sharedLink({ url: 'https://a.example/x', title: 'A page', text: 'ignored https://b.example' }),
    {
      url: 'https://a.example/x',
      title: 'A page',
    },
  );
  assert.deepEqual(sharedLink({ title: 'An article', text: 'https://news.example/story?id=1' }), {
    url: 'https://news.example/story?id=1',
    title: 'An article',
  });
  assert.deepEqual(sharedLink({ text: 'Look at this: https://news.example/a-story. So good!' }), {
    url: 'https://news.example/a-story',
    title: 'Look at this: . So good!',
  });
  assert.equal(
    sharedLink({ text: '(see https://en.wikipedia.org/wiki/Tidings_(film))' }).url,
    'https://en.wikipedia.org/wiki/Tidings_(film)',
  );
  assert.equal(sharedLink({ text: 'HTTP://SHOUT.EXAMPLE/x' }).url, 'HTTP://SHOUT.EXAMPLE/x');
  assert.equal(sharedLink({ title: 'https://t.example/only' }).url, 'https://t.example/only');
  assert.deepEqual(sharedLink({ url: 'https://a.example/', title: 'https://a.example/' }), {
    url: 'https://a.example/',
    title: '',
  });
  assert.deepEqual(sharedLink({ text: 'no address here, ftp://x.example or javascript:alert(1)' }), {
    url: null,
    title: 'no address here, ftp://x.example or javascript:alert(1)',
  });
  assert.deepEqual(sharedLink({}), { url: null, title: '' });
  const long = sharedLink({ text: `https://l.example ${'word '.repeat(400)}` }).title;
  assert.ok(codePoints(long) <= 1000 && codePoints(long) > 900 && long.endsWith('…'), long);
});

await describeEachEngine('web app: manifest and share target', (ctx) => {
  let app: FastifyInstance;
  let account: Awaited<ReturnType<typeof newAccount>>;

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    account = await newAccount(ctx.store());
  });
  after(() => app.close());

  const queued = async (id = account.id) => (await savedUrls(ctx.store(), id)).map((i) => i.url);

  test('the manifest is valid JSON with what installing needs, served as application/manifest+json', async () => {
    const res = await app.inject({ method: 'GET', url: '/manifest.webmanifest' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/manifest\+json/);
    const m = JSON.parse(res.body) as Record<string, unknown>;
    assert.equal(m.name, 'Tidings');
    assert.equal(m.short_name, 'Tidings');
    assert.equal(m.start_url, '/queue');
    assert.equal(m.scope, '/');
    assert.equal(m.display, 'standalone');
    assert.match(String(m.theme_color), /^#[0-9a-f]{6}$/);
    assert.match(String(m.background_color), /^#[0-9a-f]{6}$/);
    assert.deepEqual(m.share_target, {
      action: '/share',
      method: 'GET',
      enctype: 'application/x-www-form-urlencoded',
      params: { title: 'title', text: 'text', url: 'url' },
    });
    const icons = m.icons as { src: string; sizes: string; type: string; purpose: string }[];
    for (const want of ['192x192 any', '512x512 any', '512x512 maskable']) {
      assert.ok(
        icons.some((i) => `${i.sizes} ${i.purpose}` === want && i.type === 'image/png'),
        want,
      );
    }
    for (const icon of icons) {
      const got = await app.inject({ method: 'GET', url: icon.src });
      assert.equal(got.statusCode, 200, icon.src);
      assert.equal(got.headers['content-type'], icon.type, icon.src);
      if (icon.type !== 'image/png') {
        assert.match(got.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        continue;
      }
      const png = got.rawPayload;
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
      const [w, h] = icon.sizes.split('x').map(Number);
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [w, h], icon.src);
    }
    const apple = await app.inject({ method: 'GET', url: '/icons/apple-touch-icon.png' });
    assert.equal(apple.statusCode, 200);
    assert.deepEqual([apple.rawPayload.readUInt32BE(16), apple.rawPayload.readUInt32BE(20)], [180, 180]);
  });

  test('every page links the manifest, the icons and the theme colour; the CSP allows the manifest', async () => {
    const res = await app.inject({ method: 'GET', url: '/sign-in', headers: { accept: 'text/html' } });
    assert.match(res.body, /<link rel="manifest" href="\/manifest\.webmanifest" \/>/);
    assert.match(res.body, /<link rel="apple-touch-icon" href="\/icons\/apple-touch-icon\.png" \/>/);
    assert.match(res.body, /<link rel="icon" href="\/icons\/icon\.svg" type="image\/svg\+xml" \/>/);
    assert.match(
      res.body,
      /<meta name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: dark\)" \/>/,
    );
    assert.match(String(res.headers['content-security-policy']), /manifest-src 'self'/);
  });

  test('signed in: a share with the address in url, or in text, shows the filled-in form and saves nothing', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const before = await queued();
    const inUrl = await client.get(
      `/share?${new URLSearchParams({ title: 'A <b>shared</b> page', text: '', url: 'https://share.example/one' })}`,
    );
    assert.equal(inUrl.statusCode, 200);
    assert.match(inUrl.body, /<form class="stack" method="post" action="\/queue"/);
    assert.match(inUrl.body, /id="url"[\s\S]*?value="https:\/\/share\.example\/one"/);
    assert.match(inUrl.body, /id="title"[\s\S]*?value="A &lt;b&gt;shared&lt;\/b&gt; page"/);
    assert.match(inUrl.body, /name="_csrf" value="[^"]+"/);
    const inText = await client.get(
      `/share?${new URLSearchParams({ title: 'Story', text: 'Read this https://share.example/two' })}`,
    );
    assert.equal(inText.statusCode, 200);
    assert.match(inText.body, /id="url"[\s\S]*?value="https:\/\/share\.example\/two"/);
    assert.deepEqual(await queued(), before, 'a GET saved nothing');
  });

  test('Save from anywhere keeps the iPhone Shortcut and tells how to install the app on Android', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const res = await client.get('/save');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<strong>iPhone and iPad<\/strong> \(the Shortcuts app\)/);
    assert.match(res.body, /<em>Get Contents of URL<\/em>/);
    assert.match(res.body, /<em>Install app<\/em>/);
    assert.match(res.body, /choose <em>Tidings<\/em>/);
  });

  test('nothing with an address was shared: a clear message and an empty address field', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const res = await client.get(`/share?${new URLSearchParams({ title: 'A note', text: 'just words' })}`);
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /role="alert"[^>]*>What was shared has no web address/);
    assert.match(res.body, /id="url"[\s\S]*?value=""/);
    assert.match(res.body, /id="title"[\s\S]*?value="A note"/);
  });

  test('confirming saves through the queue form; without the session’s CSRF token nothing is saved', async () => {
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get(`/share?${new URLSearchParams({ text: 'https://share.example/confirmed' })}`);
    const forged = await client.post('/queue', {
      _csrf: 'x'.repeat(43),
      url: 'https://share.example/confirmed',
    });
    assert.equal(forged.statusCode, 403);
    const none = await client.post('/queue', { _csrf: null, url: 'https://share.example/confirmed' });
    assert.equal(none.statusCode, 403);
    assert.ok(!(await queued()).includes('https://share.example/confirmed'));
    const ok = await client.post('/queue', { url: 'https://share.example/confirmed', title: 'Confirmed' });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/queue?notice=added');
    assert.ok((await queued()).includes('https://share.example/confirmed'));
  });

  test('not signed in: to the sign-in page, then back to the share with its address and title', async () => {
    const client = new WebClient(app);
    const shared = `/share?${new URLSearchParams({ title: 'Later', text: 'see https://share.example/after-sign-in', url: '' })}`;
    const first = await client.get(shared);
    assert.equal(first.statusCode, 303);
    const location = String(first.headers.location);
    assert.ok(location.startsWith('/sign-in?next='), location);
    const next = new URL(location, 'http://x').searchParams.get('next') ?? '';
    assert.equal(
      next,
      `/share?${new URLSearchParams({ url: 'https://share.example/after-sign-in', title: 'Later' })}`,
    );
    const signInPage = await client.get(location);
    assert.match(
      signInPage.body,
      new RegExp(`name="next" value="${next.replace(/[.?+&]/g, (c) => (c === '&' ? '&amp;' : `\\${c}`))}"`),
    );
    const signedIn = await client.post('/sign-in', { key: account.apiKey, next });
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, next);
    const back = await client.get(next);
    assert.equal(back.statusCode, 200);
    assert.match(back.body, /id="url"[\s\S]*?value="https:\/\/share\.example\/after-sign-in"/);
    assert.match(back.body, /id="title"[\s\S]*?value="Later"/);
  });

  test('a long shared address survives the trip through sign-in; another site never does', async () => {
    const long = `https://share.example/${'a'.repeat(2000)}`;
    const client = new WebClient(app);
    const first = await client.get(`/share?${new URLSearchParams({ url: long, title: 'é'.repeat(500) })}`);
    const next = new URL(String(first.headers.location), 'http://x').searchParams.get('next') ?? '';
    await client.get(String(first.headers.location));
    const signedIn = await client.post('/sign-in', { key: account.apiKey, next });
    assert.equal(signedIn.headers.location, next);

    for (const evil of [
      '//evil.example/share',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
      '/ok path',
    ]) {
      const other = new WebClient(app);
      await other.get(`/sign-in?next=${encodeURIComponent(evil)}`);
      const res = await other.post('/sign-in', { key: account.apiKey, next: evil });
      assert.equal(res.statusCode, 303, evil);
      assert.equal(res.headers.location, '/queue', evil);
    }
  });
});
