import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/** The Feeds page's import report counts the outlines it skipped for want of a feed address (issue 25). */
const OPML = `<?xml version="1.0"?><opml version="2.0"><body>
  <outline text="One" xmlUrl="https://one.example/feed.xml"/>
  <outline text="Bookmark" htmlUrl="https://site.example/"/>
  <outline text="Folder"><outline text="No address" type="rss"/></outline>
</body></opml>`;

await describeEachEngine('web app: OPML outlines without a feed address', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  test('are counted in the report the Feeds page shows', async () => {
    const client = new WebClient(app);
    await client.signIn((await newAccount(ctx.store())).apiKey);
    await client.get('/feeds');
    const boundary = '----tidings';
    const res = await app.inject({
      method: 'POST',
      url: '/feeds/import',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${client.csrf}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="opml"; filename="feeds.opml"\r\n` +
        `Content-Type: text/x-opml\r\n\r\n${OPML}\r\n--${boundary}--\r\n`,
    });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/feeds?notice=imported-1-0-0-2');
    const page = await client.get('/feeds?notice=imported-1-0-0-2');
    assert.match(
      page.body,
      /Imported 1 feed \(0 you already followed, 0 refused, 2 outlines without a feed address skipped\)/,
    );
  });
});
