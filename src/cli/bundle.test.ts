/**
 * The bundle users run (dist/app/main.js, scripts/bundle.mjs) as a real process: it serves both API
 * variants, its page reader's extraction thread reads a saved page, and its EPUB thread makes a book. The
 * other tests run the unbundled dist/; this one shows the bundle is the same program with its threads found,
 * and with what it leaves outside found too: a catalogue required from the file beside it (German), and
 * iconv-lite's Shift_JIS table, required from node_modules at the first page that needs it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import iconv from 'iconv-lite';
import { after, test } from 'node:test';
import { createTestDatabase } from '../test/databases.js';
import { APP_MAIN, assertBuilt, runCli, startServer } from '../test/process.js';

assertBuilt();

const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

const WORD = 'quetzalcoatlbundle';
/** Page /b's title, sent in Shift_JIS. */
const JAPANESE_TITLE = '東京の朝のニュース';
/** A 1×1 PNG: the pages' lead image, which the digest shows through the media proxy. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

test('the bundle serves, reads a saved page in its thread and makes an EPUB in another', async () => {
  const pages = http.createServer((req, res) => {
    if (req.url === '/pic.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      return;
    }
    const japanese = req.url === '/b';
    res.writeHead(200, { 'content-type': `text/html; charset=${japanese ? 'shift_jis' : 'utf-8'}` });
    const p = `<p>This article is about the ${WORD} and is long enough to be read as an article. `.repeat(20);
    const image = `<meta property="og:image" content="http://127.0.0.1:${port()}/pic.png">`;
    const title = japanese ? JAPANESE_TITLE : `Page ${req.url ?? ''}`;
    const html = `<!doctype html><html><head><title>${title}</title>${image}</head><body><article><h1>${title}</h1>${p}</p></article></body></html>`;
    res.end(japanese ? iconv.encode(html, 'shift_jis') : html);
  });
  const port = (): number => {
    const bound = pages.address();
    return bound !== null && typeof bound === 'object' ? bound.port : 0;
  };
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => pages.close(resolve)));
  const address = pages.address();
  assert.ok(address !== null && typeof address === 'object');
  const site = `http://127.0.0.1:${address.port}`;

  const db = await createTestDatabase('sqlite');
  closers.push(() => db.drop());
  const env = { TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' };
  const server = await startServer({ databaseUrl: db.url, env, main: APP_MAIN });
  closers.push(() => server.stop());
  const key = /shown only this once: (tdg_[0-9a-f]+)/.exec(server.stdout())?.[1];
  assert.ok(key !== undefined, server.stdout());

  const a = await fetch(`${server.baseUrl}/api/v1/articles?apiKey=${key}`, {
    method: 'POST',
    body: new URLSearchParams({ url: `${site}/a` }),
  });
  assert.equal(a.status, 200, await a.clone().text());
  const b = await fetch(`${server.baseUrl}/api`, {
    method: 'POST',
    body: new URLSearchParams({ api_key: key, url: `${site}/b` }),
  });
  assert.equal(b.status, 200, await b.clone().text());
  const listed = (await (await fetch(`${server.baseUrl}/api/v1/articles?apiKey=${key}`)).json()) as {
    url: string;
  }[];
  assert.deepEqual(listed.map((l) => l.url).sort(), [`${site}/a`, `${site}/b`]);

  // The page reader (serve's worker) reads both pages in its extraction thread; search then finds the word
  // that only the pages' text has.
  const vars = { DATABASE_URL: db.url };
  let found = '';
  // The reader's first pass after the saves comes within its 30 s sleep.
  for (let i = 0; i < 150 && !found.includes(`${site}/b`); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const r = await runCli(['search', '--account', '1', WORD], vars);
    found = r.stdout;
  }
  assert.match(found, new RegExp(`${site}/a`));
  assert.match(found, new RegExp(`${site}/b`));

  const german = await runCli(
    ['account', 'set', '--account', '1', '--language', 'de'],
    vars,
    20_000,
    '',
    APP_MAIN,
  );
  assert.equal(german.code, 0, german.stderr);
  const built = await runCli(
    ['digest', 'run', '--account', '1', '--force', '--json'],
    vars,
    20_000,
    '',
    APP_MAIN,
  );
  const digestId = (JSON.parse(built.stdout.split('\n')[0] ?? '') as { digestId?: number }).digestId;
  assert.ok(digestId !== undefined, built.stdout + built.stderr);
  const book = await runCli(['digest', 'epub', String(digestId)], vars, 20_000, '', APP_MAIN);
  assert.equal(book.code, 0, book.stderr);
  assert.ok(book.stdout.startsWith('PK'), 'a zip');
  assert.ok(book.stdout.includes('mimetypeapplication/epub+zip'), 'an EPUB');

  // The email's thumbnails go through the media proxy: signed by one process (the CLI) with the key in
  // the database, served by another (serve), the proxy's fetching loaded at the first image.
  const shown = await runCli(
    ['digest', 'show', String(digestId), '--format', 'html'],
    vars,
    20_000,
    '',
    APP_MAIN,
  );
  assert.match(shown.stdout, /<html lang="de"/);
  assert.ok(shown.stdout.includes(JAPANESE_TITLE), 'the Shift_JIS page read as Japanese');
  const media = /<img src="https?:\/\/[^/"]+(\/media\/[\w-]+\/[\w-]+)"/.exec(shown.stdout)?.[1];
  assert.ok(media !== undefined, shown.stdout + shown.stderr);
  const image = await fetch(`${server.baseUrl}${media}`);
  assert.equal(image.status, 200, await image.clone().text());
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);

  // The web app: its sign-in page.
  const signIn = await fetch(`${server.baseUrl}/sign-in`);
  assert.equal(signIn.status, 200);
  assert.match(await signIn.text(), /<form[^>]*method="post"/i);

  const health = await runCli(['healthcheck'], { PORT: String(server.port) }, 20_000, '', APP_MAIN);
  assert.equal(health.code, 0, health.stderr);
});
