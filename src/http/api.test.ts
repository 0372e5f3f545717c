import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { A, B, assertError, codes, listQueue, startApi } from '../test/apiClient.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

await describeEachEngine('saved-URL API', (ctx) => {
  let app: FastifyInstance;
  let key: string;
  let accountId: number;
  const a = (): string => `${A}?apiKey=${key}`;
  const b = (): string => `${B}?api_key=${key}`;
  const list = (path = a()): Promise<{ url: string; title: string }[]> => listQueue(app, path);

  before(async () => {
    ({ app, key, accountId } = await startApi(ctx));
  });
  after(() => app.close());

  test('GET on an empty queue is an empty array on both variants', async () => {
    for (const path of [a(), b()]) {
      const res = await app.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.deepEqual(res.json(), []);
    }
  });

  test('POST on variant A answers {code: 0, message}', async () => {
    const res = await app.inject({
      method: 'POST',
      url: a(),
      payload: { url: 'https://example.com/one', title: 'One' },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
    assert.equal(body.code, 0);
    assert.equal(typeof body.message, 'string');
  });

  test('POST on variant B answers exactly {"message":"success"}', async () => {
    const res = await app.inject({ method: 'POST', url: b(), payload: { url: 'https://example.com/two' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '{"message":"success"}');
  });

  test('both variants share one queue, oldest first, with exactly url and title', async () => {
    const items = await list();
    assert.deepEqual(items, [
      { url: 'https://example.com/one', title: 'One' },
      { url: 'https://example.com/two', title: 'https://example.com/two' },
    ]);
    assert.deepEqual(await list(b()), items);
    for (const item of items) assert.deepEqual(Object.keys(item).sort(), ['title', 'url']);
  });

  test('form, multipart and charset bodies are read', async () => {
    const form = await app.inject({
      method: 'POST',
      url: b(),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      payload: 'url=https%3A%2F%2Fexample.com%2Fform&title=Caf%C3%A9+form',
    });
    assert.equal(form.statusCode, 200, form.body);
    const latin1 = await app.inject({
      method: 'POST',
      url: a(),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
      payload: 'url=https://example.com/latin1&title=Caf%E9',
    });
    assert.equal(latin1.statusCode, 200, latin1.body);
    const jsonLatin1 = await app.inject({
      method: 'POST',
      url: a(),
      headers: { 'content-type': 'application/json; charset=windows-1252' },
      payload: Buffer.from('{"url":"https://example.com/json1252","title":"Na\xefve \x80"}', 'latin1'),
    });
    assert.equal(jsonLatin1.statusCode, 200, jsonLatin1.body);
    const boundary = 'XyZ123';
    const multipart = await app.inject({
      method: 'POST',
      url: a(),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://example.com/multi\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nMulti part\r\n--${boundary}--\r\n`,
    });
    assert.equal(multipart.statusCode, 200, multipart.body);
    const titles = new Map((await list()).map((i) => [i.url, i.title]));
    assert.equal(titles.get('https://example.com/form'), 'Café form');
    assert.equal(titles.get('https://example.com/latin1'), 'Café');
    assert.equal(titles.get('https://example.com/json1252'), 'Naïve €');
    assert.equal(titles.get('https://example.com/multi'), 'Multi part');
  });

  test('multipart file parts are refused without saving anything', async () => {
    const before = (await list()).length;
    const boundary = 'b0undary';
    const res = await app.inject({
      method: 'POST',
      url: a(),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://example.com/file\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
    });
    assertError(res, 400, codes.body_malformed);
    assert.equal((await list()).length, before);
  });

  test('a Content-Type that does not match the body means the parameters are ignored: 400 url missing', async () => {
    const cases: { type?: string; payload: string }[] = [
      { type: 'application/x-www-form-urlencoded', payload: '{"url":"https://example.com/x"}' },
      { type: 'application/json', payload: 'url=https%3A%2F%2Fexample.com%2Fx' },
      { payload: 'url=https%3A%2F%2Fexample.com%2Fx' },
      { type: 'text/plain', payload: 'url=https://example.com/x' },
      { type: 'application/unknown', payload: '{"url":"https://example.com/x"}' },
      { type: 'multipart/form-data', payload: 'url=https://example.com/x' },
      { type: 'multipart/form-data; boundary=zz', payload: '{"url":"https://example.com/x"}' },
      { type: 'not a media type', payload: 'url=https://example.com/x' },
    ];
    for (const c of cases) {
      const headers: Record<string, string> = c.type === undefined ? {} : { 'content-type': c.type };
      const res = await app.inject({ method: 'POST', url: a(), headers, payload: c.payload });
      assertError(res, 400, codes.url_missing);
    }
    assert.ok(!(await list()).some((i) => i.url === 'https://example.com/x'));
  });

  test('missing and invalid url or title are 400 with distinct codes', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{}, codes.url_missing],
      [{ url: '' }, codes.url_missing],
      [{ title: 'no url' }, codes.url_missing],
      [{ url: 'not a url' }, codes.url_invalid],
      [{ url: '/relative/path' }, codes.url_invalid],
      [{ url: 'ftp://example.com/file' }, codes.url_invalid],
      [{ url: 'javascript:alert(1)' }, codes.url_invalid],
      [{ url: `https://example.com/${'a'.repeat(2030)}` }, codes.url_too_long],
      [{ url: 'https://example.com/t', title: 'x'.repeat(1001) }, codes.title_invalid],
      [{ url: 42 }, codes.body_malformed],
      [{ url: ['https://example.com/'] }, codes.body_malformed],
    ];
    for (const [payload, code] of cases) {
      const res = await app.inject({ method: 'POST', url: a(), payload });
      assertError(res, 400, code);
    }
    const array = await app.inject({ method: 'POST', url: b(), payload: [{ url: 'https://example.com/' }] });
    assertError(array, 400, codes.body_malformed);
  });

  test('the limits are inclusive: a 2,048-character url and a 1,000-character title are accepted', async () => {
    const url = `https://example.com/${'b'.repeat(2048 - 'https://example.com/'.length)}`;
    assert.equal(url.length, 2048);
    const title = 'é'.repeat(1000);
    const res = await app.inject({ method: 'POST', url: a(), payload: { url, title } });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok((await list()).some((i) => i.url === url && i.title === title));
  });

  test('a long non-ASCII URL (far over 2,704 bytes percent-encoded) is saved and deduplicated', async () => {
    const url = `https://example.com/${'日本語'.repeat(600)}`;
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({ method: 'POST', url: a(), payload: { url } });
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.equal((await list()).filter((i) => i.url === url).length, 1);
  });

  test('the same URL is queued once (after normalising); a given title replaces the old one', async () => {
    const before = (await list()).length;
    await app.inject({
      method: 'POST',
      url: a(),
      payload: { url: 'https://news.example.org/story?id=1', title: 'First' },
    });
    const variants = [
      'HTTPS://News.Example.ORG/story?id=1',
      'https://news.example.org:443/story?id=1#comments',
      'https://news.example.org/story?id=1&utm_source=rss',
    ];
    for (const url of variants) {
      const res = await app.inject({ method: 'POST', url: b(), payload: { url } });
      assert.equal(res.body, '{"message":"success"}');
    }
    let items = await list();
    assert.equal(items.length, before + 1);
    const story = items.find((i) => i.url === 'https://news.example.org/story?id=1');
    assert.equal(story?.title, 'First', 'a POST without a title keeps the old title');
    const retitled = await app.inject({
      method: 'POST',
      url: a(),
      payload: { url: 'https://NEWS.example.org/story?id=1#top', title: 'Second' },
    });
    assert.equal(retitled.statusCode, 200);
    items = await list();
    assert.equal(items.length, before + 1);
    assert.equal(items.find((i) => i.url === 'https://news.example.org/story?id=1')?.title, 'Second');
    const other = await app.inject({
      method: 'POST',
      url: a(),
      payload: { url: 'http://news.example.org/story?id=1' },
    });
    assert.equal(other.statusCode, 200);
    assert.equal((await list()).length, before + 2, 'http and https are different URLs');
  });

  test('a GET after a POST sees the change (the response cache is invalidated)', async () => {
    const first = await list();
    const again = await list();
    assert.deepEqual(again, first);
    await app.inject({ method: 'POST', url: a(), payload: { url: 'https://example.com/fresh' } });
    const after = await list();
    assert.equal(after.length, first.length + 1);
    assert.equal(after.at(-1)?.url, 'https://example.com/fresh');
    // A change made behind the server's back (another instance) bumps the version too.
    const { addSavedUrl } = await import('../queue/add.js');
    await addSavedUrl(
      ctx.store(),
      accountId,
      { url: 'https://example.com/elsewhere', title: undefined, source: 'api' },
      { limit: 100 },
    );
    assert.equal((await list()).at(-1)?.url, 'https://example.com/elsewhere');
  });

  test('a full queue answers 409 and keeps what it has; re-saving a queued URL still works', async () => {
    const full = await newAccount(ctx.store());
    const path = `${A}?apiKey=${full.apiKey}`;
    for (let i = 0; i < 50; i++) {
      const res = await app.inject({
        method: 'POST',
        url: path,
        payload: { url: `https://example.com/n/${i}` },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    assertError(
      await app.inject({ method: 'POST', url: path, payload: { url: 'https://example.com/n/50' } }),
      409,
      codes.queue_full,
    );
    const again = await app.inject({
      method: 'POST',
      url: path,
      payload: { url: 'https://example.com/n/3', title: 'retitled' },
    });
    assert.equal(again.statusCode, 200);
    const items = await list(path);
    assert.equal(items.length, 50);
    assert.equal(items[3]?.title, 'retitled');
  });
});
