import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { fixture } from '../../imports/testdata/fixtures.js';
import { readingListCounts } from '../../store/readingList.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

const BOUNDARY = '----tidings-reading';

/** A multipart body as the page's form sends it: the token, the format and the file. */
export function uploadBody(
  fields: Record<string, string>,
  file: Uint8Array | null,
  name = 'export.csv',
): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file !== null) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="export"; filename="${name}"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.from(file),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** A Pocket CSV of these rows: [title, url, unix seconds, tags (|), status]. */
const pocketCsv = (rows: readonly (readonly [string, string, number, string, string])[]): Uint8Array =>
  Buffer.from(
    `title,url,time_added,tags,status\n${rows.map((r) => r.map((c) => `"${String(c)}"`).join(',')).join('\n')}\n`,
  );

await describeEachEngine('web app: the reading list', (ctx) => {
  let app: FastifyInstance;

  before(() => {
    app = webServer(ctx.store());
  });
  after(() => app.close());

  async function reader(): Promise<{ client: WebClient; id: number }> {
    const account = await newAccount(ctx.store());
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get('/reading-list');
    return { client, id: account.id };
  }

  const upload = (client: WebClient, body: Buffer) =>
    app.inject({
      method: 'POST',
      url: '/reading-list/import',
      headers: {
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: body,
    });

  const counts = (id: number) => readingListCounts(ctx.store().db, id);
  const idsIn = (body: string, action = 'archive'): number[] =>
    [...body.matchAll(new RegExp(`action="/reading-list/(\\d+)/${action}"`, 'g'))].map((m) => Number(m[1]));

  test('empty: the page says how to import, and the navigation links to it', async () => {
    const { client } = await reader();
    const res = await client.get('/reading-list');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/reading-list"\s+aria-current="page"\s*>Reading list<\/a/);
    assert.match(res.body, /Your reading list is empty\./);
    assert.match(res.body, /tidings import --account ID FILE/);
    assert.match(res.body, /enctype="multipart\/form-data"/);
    assert.match(res.body, /<option value="wallabag">/);
    assert.match((await client.get('/queue')).body, /<a href="\/reading-list"\s*>Reading list<\/a/);
  });

  test('uploads: Pocket, Wallabag (format named) and bookmarks, each with the CLI’s counts', async () => {
    const { client, id } = await reader();
    const pocket = await upload(
      client,
      uploadBody({ _csrf: client.csrf, format: 'auto' }, fixture('pocket.csv')),
    );
    assert.equal(pocket.statusCode, 200, pocket.body);
    assert.match(
      pocket.body,
      /Imported 3 links from a pocket export of 6 rows into the reading list: 0 already there \(merged\), 1 duplicates within the file, 2 bad rows skipped\./,
    );
    assert.match(pocket.body, /<dt>Rows<\/dt>\s*<dd>6<\/dd>/);
    assert.match(pocket.body, /<dt>Bad<\/dt>\s*<dd>2<\/dd>/);
    assert.match(pocket.body, /Skipped line 6: /);
    assert.deepEqual(await counts(id), { unread: 1, archived: 2 });
    // The page answered shows the list: its one unread item.
    assert.match(pocket.body, /https:\/\/blank\.example\//);

    const wallabag = await upload(
      client,
      uploadBody({ _csrf: client.csrf, format: 'wallabag' }, fixture('wallabag.json'), 'w.json'),
    );
    assert.equal(wallabag.statusCode, 200, wallabag.body);
    assert.match(wallabag.body, /Imported \d+ links from a wallabag export of \d+ rows/);
    const bookmarks = await upload(
      client,
      uploadBody({ _csrf: client.csrf }, fixture('bookmarks.html'), 'b.html'),
    );
    assert.equal(bookmarks.statusCode, 200, bookmarks.body);
    assert.match(bookmarks.body, /Imported \d+ links from a bookmarks export of \d+ rows/);
    assert.match(bookmarks.body, /#cooking/);

    // The same file again: everything merged, nothing new.
    const before = await counts(id);
    const again = await upload(client, uploadBody({ _csrf: client.csrf }, fixture('pocket.csv')));
    assert.match(
      again.body,
      /Imported 0 links from a pocket export of 6 rows into the reading list: 3 already there/,
    );
    assert.deepEqual(await counts(id), before);
  });

  test('refused uploads show why in the page and import nothing', async () => {
    const { client, id } = await reader();
    const notExport = await upload(client, uploadBody({ _csrf: client.csrf }, Buffer.from('hello, world\n')));
    assert.equal(notExport.statusCode, 400, notExport.body);
    assert.match(
      notExport.body,
      /<p class="error" role="alert" id="import-error">That file cannot be imported: /,
    );
    const wrongFormat = await upload(
      client,
      uploadBody({ _csrf: client.csrf, format: 'wallabag' }, fixture('pocket.csv')),
    );
    assert.equal(wrongFormat.statusCode, 400);
    assert.match(wrongFormat.body, /looks like a pocket export, not wallabag; choose “Recognise it”/);
    const noFile = await upload(client, uploadBody({ _csrf: client.csrf }, null));
    assert.equal(noFile.statusCode, 400);
    assert.match(noFile.body, /Choose an export file to import\./);
    const unknownFormat = await upload(
      client,
      uploadBody({ _csrf: client.csrf, format: 'kindle' }, fixture('pocket.csv')),
    );
    assert.equal(unknownFormat.statusCode, 400);
    const malformed = await app.inject({
      method: 'POST',
      url: '/reading-list/import',
      headers: {
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${client.csrf}\r\n--${BOUNDARY}\r\nContent-Disp`,
    });
    assert.equal(malformed.statusCode, 400, malformed.body);
    assert.match(malformed.body, /The upload could not be read as a form\./);
    // No token: refused before anything is read into the list.
    const noToken = await upload(client, uploadBody({}, fixture('pocket.csv')));
    assert.equal(noToken.statusCode, 403);
    assert.deepEqual(await counts(id), { unread: 0, archived: 0 });
    // Without a session the upload is refused before its body is read.
    const anonymous = await app.inject({
      method: 'POST',
      url: '/reading-list/import',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: uploadBody({}, fixture('pocket.csv')),
    });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, '/sign-in?notice=ended');
  });

  test('a file past 50 MB is refused while it streams, in the page, nothing imported', async () => {
    const { client, id } = await reader();
    // A valid Pocket CSV up to the limit, then one more row: only its size is wrong.
    const head = Buffer.from(
      'title,url,time_added,tags,status\nFirst,https://big.example/1,1609459200,,unread\n',
    );
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    head.copy(big);
    big[big.length - 1] = 0x0a;
    const res = await upload(client, uploadBody({ _csrf: client.csrf }, big));
    assert.equal(res.statusCode, 413, res.body.slice(0, 500));
    assert.match(
      res.body,
      /That file is larger than 50 MB, the most one import takes; nothing of it was imported\./,
    );
    assert.deepEqual(await counts(id), { unread: 0, archived: 0 });
    // The server goes on: a file within the limit is taken.
    const ok = await upload(client, uploadBody({ _csrf: client.csrf }, big.subarray(0, 1024 * 1024)));
    assert.equal(ok.statusCode, 200, ok.body.slice(0, 500));
    assert.deepEqual(await counts(id), { unread: 1, archived: 0 });
  });

  test('filters by state and tag (LIKE’s % and _ taken as text), pages keep them', async () => {
    const { client, id } = await reader();
    const rows: [string, string, number, string, string][] = [
      ['Percent', 'https://t.example/percent', 1600000001, '100%', 'unread'],
      ['Thousand', 'https://t.example/thousand', 1600000002, '1000', 'unread'],
      ['Under', 'https://t.example/under', 1600000003, 'a_b', 'unread'],
      ['Axb', 'https://t.example/axb', 1600000004, 'axb', 'archive'],
    ];
    for (let i = 0; i < 120; i++) {
      rows.push([
        `Bulk ${String(i).padStart(3, '0')}`,
        `https://bulk.example/${i}`,
        1500000000 + i,
        'bulk',
        i % 3 === 0 ? 'archive' : 'unread',
      ]);
    }
    await upload(client, uploadBody({ _csrf: client.csrf }, pocketCsv(rows)));
    assert.deepEqual(await counts(id), { unread: 83, archived: 41 });

    const unread = (await client.get('/reading-list')).body;
    assert.match(unread, />Unread \(83\)<\/a/);
    assert.match(unread, />Archived \(41\)<\/a/);
    assert.match(unread, />All \(124\)<\/a/);
    assert.match(unread, />#bulk \(80\)<\/a/);
    assert.match(unread, /Items 1–50 of 83/);
    // Newest saved first.
    assert.ok(unread.indexOf('>Under<') < unread.indexOf('>Percent<'));
    assert.doesNotMatch(unread, />Axb</);

    const percent = (await client.get('/reading-list?tag=100%25')).body;
    assert.match(percent, />Percent</);
    assert.doesNotMatch(percent, />Thousand</);
    const under = (await client.get('/reading-list?tag=a_b&state=all')).body;
    assert.match(under, />Under</);
    assert.doesNotMatch(under, />Axb</);
    assert.equal(idsIn(under).length, 1);
    const archived = (await client.get('/reading-list?state=archived&tag=AXB')).body;
    assert.match(archived, />Axb</);
    assert.match(archived, /action="\/reading-list\/\d+\/unarchive"/);

    const all = (await client.get('/reading-list?state=all&tag=bulk')).body;
    assert.match(all, /Items 1–50 of 120/);
    assert.match(all, /<a href="\/reading-list\?state=all&amp;tag=bulk&amp;start=50">Older<\/a>/);
    assert.match(all, />Bulk 119</);
    const second = (await client.get('/reading-list?state=all&tag=bulk&start=50')).body;
    assert.match(second, /Items 51–100 of 120/);
    assert.match(second, />Bulk 069</);
    assert.doesNotMatch(second, />Bulk 070</);
    assert.match(second, /<a href="\/reading-list\?state=all&amp;tag=bulk">Newer<\/a>/);
    assert.match(second, /<a href="\/reading-list\?state=all&amp;tag=bulk&amp;start=100">Older<\/a>/);
    // A tag in an item's line filters by it, keeping the state.
    assert.match(second, /<a href="\/reading-list\?state=all&amp;tag=bulk">#bulk<\/a>/);
    // Past the end: the last page.
    assert.match(
      (await client.get('/reading-list?state=all&tag=bulk&start=500')).body,
      /Items 101–120 of 120/,
    );
    const none = (await client.get('/reading-list?tag=nothing')).body;
    assert.match(none, /No unread items tagged nothing/);
  });

  test('archive and unarchive: back to the same filters; CSRF and other accounts refused', async () => {
    const { client, id } = await reader();
    await upload(
      client,
      uploadBody(
        { _csrf: client.csrf },
        pocketCsv([
          ['Keep me', 'https://a.example/1', 1600000001, 'x', 'unread'],
          ['Archive me', 'https://a.example/2', 1600000002, 'x', 'unread'],
        ]),
      ),
    );
    const page = (await client.get('/reading-list?tag=x&start=0')).body;
    const [first] = idsIn(page); // newest: "Archive me"
    assert.ok(first !== undefined);

    const withoutToken = await client.post(`/reading-list/${first}/archive`, { _csrf: null });
    assert.equal(withoutToken.statusCode, 403);
    assert.deepEqual(await counts(id), { unread: 2, archived: 0 });

    const other = await reader();
    const theirs = (await other.client.get('/reading-list?state=all&tag=x')).body;
    assert.doesNotMatch(theirs, /Archive me|a\.example/);
    const stolen = await other.client.post(`/reading-list/${first}/archive`);
    assert.equal(stolen.statusCode, 404);
    assert.match(stolen.body, /That item is not in your reading list\./);
    assert.deepEqual(await counts(id), { unread: 2, archived: 0 });
    assert.equal((await client.post('/reading-list/999999999/archive')).statusCode, 404);

    const archived = await client.post(`/reading-list/${first}/archive`, { tag: 'x', state: 'unread' });
    assert.equal(archived.statusCode, 303);
    assert.equal(archived.headers.location, '/reading-list?tag=x&notice=archived');
    assert.deepEqual(await counts(id), { unread: 1, archived: 1 });
    const after = (await client.get('/reading-list?tag=x&notice=archived')).body;
    assert.match(after, /<p class="notice" role="status">Archived\.<\/p>/);
    assert.doesNotMatch(after, />Archive me</);

    const back = await client.post(`/reading-list/${first}/unarchive`, { state: 'archived', start: '50' });
    assert.equal(back.headers.location, '/reading-list?state=archived&start=50&notice=unarchived');
    assert.deepEqual(await counts(id), { unread: 2, archived: 0 });
  });
});
