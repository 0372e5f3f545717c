import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { accountById, updateAccountSettings } from '../../store/accounts.js';
import { saveUrl } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { insertPage, linkQueuedPage } from '../../test/pages.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * Issue 36 point 1 for the reading list (readingList.ts, readingListView.ts, exportUpload.ts) and the OPML
 * import of the Feeds page (opml.ts): rendered in the pseudo-locale en-XA, empty and full, paged and
 * filtered, with its notices and its refusals, no English word is left. What the page shows of the
 * reader's own links (titles, domains, tags), the import command (a machine word) and the words the file
 * readers below the transports wrote about a file (a bad row's where and why, why a file is not an
 * export) are content. A plural and a number in German and Polish are checked as written.
 */

const BOUNDARY = '----tidings-language';

/** A multipart body of these fields and, when given, one file in `fileField`. */
function multipart(fields: Record<string, string>, file: { field: string; body: string } | null): Buffer {
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  if (file !== null) {
    parts.push(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="upload"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n${file.body}\r\n`,
    );
  }
  return Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`);
}

/** The reader's links: titles and tags of made-up words, none of them English. */
const TITLES = ['Qoxa', 'Zirv', 'Plumk', 'Vexo', 'Darq'];
const TAGS = ['zunk', 'morv'];
/** Sixty rows (a page and a bit), two tags, every third archived, and one row without a URL. */
const CSV = [
  'title,url,time_added,tags,status',
  ...Array.from({ length: 60 }, (_, i) => {
    const title = `${TITLES[i % TITLES.length] ?? ''}${i}`;
    return `${title},https://zq${i % 3}.example/${i},${1600000000 + i},${TAGS[i % 2] ?? ''},${i % 3 === 0 ? 'archive' : 'unread'}`;
  }),
  'Nolink,,1600000100,,unread',
].join('\n');
/** The words the CSV reader wrote about its bad row, and a pocket file's format: content, not the page's. */
const FILE_WORDS = ['line 62', 'no url', 'pocket', 'wallabag'];

await describeEachEngine('web app: the reading list and the OPML import in the reader’s language', (ctx) => {
  let app: FastifyInstance;
  let client: WebClient;
  let account: Awaited<ReturnType<typeof newAccount>>;
  let content: string[];

  const post = (url: string, payload: Buffer | string) =>
    app.inject({
      method: 'POST',
      url,
      headers: {
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload,
    });
  const upload = (fields: Record<string, string>, body: string | null) =>
    post(
      '/reading-list/import',
      multipart({ _csrf: client.csrf, ...fields }, body === null ? null : { field: 'export', body }),
    );
  const englishIn = (body: string, more: readonly string[] = []) =>
    englishWordsOf(body, [...content, ...more]);

  before(async () => {
    app = webServer(ctx.store(), {});
    await app.ready();
    account = await newAccount(ctx.store());
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
    client = new WebClient(app);
    await client.signIn(account.apiKey);
    content = [
      (await accountById(ctx.store().db, account.id))?.name ?? '',
      'tidings import --account ID FILE',
      'tidings import',
      ...Array.from({ length: 61 }, (_, i) => `${TITLES[i % TITLES.length] ?? ''}${i}`),
      'Nolink',
      ...TAGS,
      ...[0, 1, 2].map((i) => `zq${i}.example`),
      ...FILE_WORDS,
    ];
  });
  after(() => app.close());

  test('en-XA: the reading list empty, its refusals, then full: counts, pages, filters, notices', async () => {
    const empty = await client.get('/reading-list');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<html lang="en-XA" dir="ltr">/);
    assert.match(empty.body, /<code>tidings import --account ID FILE<\/code>/);
    assert.deepEqual(englishIn(empty.body), []);

    // Each refusal the form can give, in the page with its form.
    const noFile = await upload({}, null);
    assert.equal(noFile.statusCode, 400);
    const unknownFormat = await upload({ format: 'kindle' }, CSV);
    assert.equal(unknownFormat.statusCode, 400);
    const malformed = await post(
      '/reading-list/import',
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${client.csrf}\r\n--${BOUNDARY}\r\nContent-Disp`,
    );
    assert.equal(malformed.statusCode, 400);
    const tooLarge = await upload({}, 'x'.repeat(50 * 1024 * 1024 + 1));
    assert.equal(tooLarge.statusCode, 413);
    // The file reader's reason (English, from below the transports) in the page's own sentence; its advice
    // to the CLI (--format auto) turned into the form's choice, in the reader's language.
    const wrongFormat = await upload({ format: 'wallabag' }, CSV);
    assert.equal(wrongFormat.statusCode, 400);
    const reason = /id="import-error">[^<:]*: ([^<]*)</.exec(wrongFormat.body)?.[1] ?? '';
    assert.doesNotMatch(reason, /--format|Recognise/);
    for (const res of [noFile, unknownFormat, malformed, tooLarge, wrongFormat]) {
      assert.match(res.body, /<p class="error" role="alert" id="import-error">/);
      assert.deepEqual(englishIn(res.body, ['The file looks like a', 'export, not', 'choose']), []);
    }

    // An import: its counts, its bad row, and the list it leaves.
    const imported = await upload({}, CSV);
    assert.equal(imported.statusCode, 200, imported.body.slice(0, 400));
    assert.match(imported.body, /id="import-result"/);
    assert.match(imported.body, /<ul class="bad">/);
    assert.deepEqual(englishIn(imported.body), []);

    for (const address of [
      '/reading-list',
      '/reading-list?state=all',
      '/reading-list?state=all&start=50',
      '/reading-list?state=archived',
      '/reading-list?state=all&tag=zunk',
      '/reading-list?tag=nothing',
      '/reading-list?state=archived&tag=nothing',
      '/reading-list?state=all&tag=nothing',
      '/reading-list?notice=archived',
      '/reading-list?notice=unarchived',
    ]) {
      const res = await client.get(address);
      assert.equal(res.statusCode, 200, address);
      assert.match(res.body, /<ol class="items reading"|<p>[^<]+<\/p>/, address);
      assert.deepEqual(englishIn(res.body, ['nothing']), [], address);
    }
    const first = (await client.get('/reading-list?state=all')).body;
    assert.match(first, /class="pager"/);
    assert.match(first, /aria-label="[^"]+ Qoxa\d+"/, 'each button names its link');
    assert.match(first, /<time datetime="[^"]+" title="[^"]+">/);
    assert.match(
      (await client.get('/reading-list?notice=archived')).body,
      /<p class="notice" role="status">/,
    );

    // Not in the list: the error page.
    const missing = await client.post('/reading-list/999999/archive');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(englishIn(missing.body), []);
  });

  test('en-XA: nothing unread, everything archived', async () => {
    const other = await newAccount(ctx.store());
    await updateAccountSettings(ctx.store().db, other.id, { language: 'en-XA' });
    const own = new WebClient(app);
    await own.signIn(other.apiKey);
    await own.get('/reading-list');
    const saved = client;
    client = own;
    try {
      const res = await upload(
        {},
        'title,url,time_added,tags,status\nQoxa0,https://zq0.example/0,1600000000,,archive\n',
      );
      assert.equal(res.statusCode, 200);
      const page = await own.get('/reading-list');
      assert.deepEqual(englishIn(page.body, [(await accountById(ctx.store().db, other.id))?.name ?? '']), []);
      assert.match(page.body, /<p>[^<]+<\/p>\s*<h2 id="import-heading">/);
    } finally {
      client = saved;
    }
  });

  test('en-XA: the OPML import’s refusals on the Feeds page', async () => {
    await client.get('/feeds');
    const opml = (fields: Record<string, string>, body: string | null) =>
      post(
        '/feeds/import',
        multipart({ _csrf: client.csrf, ...fields }, body === null ? null : { field: 'opml', body }),
      );
    const none = await opml({}, null);
    assert.equal(none.statusCode, 400);
    const large = await opml({}, 'x'.repeat(5 * 1024 * 1024));
    assert.equal(large.statusCode, 413);
    for (const res of [none, large]) {
      assert.match(res.body, /<p class="error" role="alert" id="opml-error">/);
      assert.deepEqual(englishIn(res.body), []);
    }
    // Not OPML: the reader's reason is the parser's (English, from below); the sentence around it is not.
    const text = await opml({}, 'hello');
    assert.equal(text.statusCode, 400);
    const error = /id="opml-error">([^<]*)</.exec(text.body)?.[1] ?? '';
    const [frame = '', ...why] = error.split(': ');
    assert.ok(why.length > 0, error);
    assert.deepEqual(englishWordsOf(frame), []);
  });

  test('en-XA: the reading view’s own words around a page’s text (item.ts, readerHtml.ts)', async () => {
    const url = 'https://zq7.example/qoxa';
    await saveUrl(ctx.store(), account.id, url);
    const page = await insertPage(ctx.store(), {
      url,
      title: 'Qoxa zirv',
      site_name: 'Plumk',
      author: 'Vexo Darq',
      published_at: '2026-11-20T07:00:00.000Z',
      language: 'und',
      image_url: 'https://img.zq7.example/lead.jpg',
      image_width: 1200,
      image_height: 800,
      image_alt: 'Darq',
      // What the sanitiser drops or rewrites: no word of its own comes in their place.
      html: '<p>Zirv <a href="javascript:x()">qoxa</a> <img src="https://img.zq7.example/a.png"></p><form>Go</form>',
      word_count: 900,
    });
    await linkQueuedPage(ctx.store(), account.id, url, page);
    const res = await client.get(`/items/${page}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<article class="reader"/);
    assert.match(res.body, /<span>qoxa<\/span>/, 'the unsafe link kept as its text only');
    assert.deepEqual(englishIn(res.body, ['Qoxa zirv', 'Plumk', 'Vexo Darq', 'Darq', 'Zirv', 'qoxa']), []);
  });

  test('de and pl: the import’s counts agree with their numbers', async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'de' });
    const one = await upload(
      {},
      'title,url,time_added,tags,status\nVexo,https://zq9.example/v,1600000000,,unread\n',
    );
    assert.match(
      one.body,
      /1 Link aus einem Export von pocket mit 1 Zeile in die Leseliste importiert: 0 schon vorhanden/,
    );
    await updateAccountSettings(ctx.store().db, account.id, { language: 'pl' });
    const page = await client.get('/reading-list?state=all&start=50');
    assert.match(page.body, /Wpisy 51–61 z 61/, /Wpisy[^<]*/.exec(page.body)?.[0]);
    assert.match(page.body, /Najwyżej 50 MB i 100\s000 linków\./);
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en-XA' });
  });
});
