import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { importSubscriptions } from '../../accounts/opml.js';
import { subscriptionsByAccount } from '../../store/subscriptions.js';
import { testRefreshDeps } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { WebClient, webServer } from '../../test/webClient.js';

/** Issue 13, bugs 3 and 5: a refused filter or OPML file is explained on the Feeds page, nothing lost. */
await describeEachEngine('web app: refusals on the Feeds page', (ctx) => {
  let app: FastifyInstance;
  let account: Awaited<ReturnType<typeof newAccount>>;
  let client: WebClient;
  let feedId = 0;

  const upload = (parts: { name: string; filename?: string; value: string }[]) => {
    const boundary = '----tidings';
    const payload =
      parts
        .map(
          (p) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
            (p.filename === undefined ? '' : `; filename="${p.filename}"\r\nContent-Type: text/x-opml`) +
            `\r\n\r\n${p.value}\r\n`,
        )
        .join('') + `--${boundary}--\r\n`;
    return app.inject({
      method: 'POST',
      url: '/feeds/import',
      headers: {
        accept: 'text/html',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload,
    });
  };

  before(async () => {
    app = webServer(ctx.store());
    await app.ready();
    account = await newAccount(ctx.store());
    await importSubscriptions(testRefreshDeps(ctx.store()), account.id, [
      { url: 'https://filters.example/feed', title: 'Filtered', htmlUrl: null, folder: null },
    ]);
    feedId = (await subscriptionsByAccount(ctx.store().db, account.id))[0]?.id ?? 0;
    client = new WebClient(app);
    await client.signIn(account.apiKey);
  });
  after(() => app.close());

  test('a refused filter: the error beside its field, the section open, what was typed kept', async () => {
    await client.get('/feeds');
    const res = await client.post(`/feeds/${feedId}/filters`, { include: '/(foo/', exclude: 'ads & "more"' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, new RegExp(`<li id="feed-${feedId}">[\\s\\S]*?<details open>`));
    assert.match(
      res.body,
      new RegExp(
        `<p class="error" id="include-${feedId}-error"[^>]*>[^<]*Not a valid regular expression /\\(foo/: missing closing \\)`,
      ),
    );
    assert.match(res.body, new RegExp(`id="include-${feedId}"[^>]*value="/\\(foo/"[^>]*aria-invalid="true"`));
    assert.match(res.body, new RegExp(`aria-describedby="include-${feedId}-error filter-hint-${feedId}"`));
    assert.match(res.body, new RegExp(`id="exclude-${feedId}"[^>]*value="ads &amp; &quot;more&quot;"`));
    assert.doesNotMatch(res.body, new RegExp(`id="exclude-${feedId}"[^>]*aria-invalid`));
    // The form comes back to its own feed, and its address read again leads to the Feeds page.
    assert.match(res.body, new RegExp(`action="/feeds/${feedId}/filters#feed-${feedId}"`));
    const again = await client.get(`/feeds/${feedId}/filters`);
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, `/feeds#feed-${feedId}`);
    const stored = (await subscriptionsByAccount(ctx.store().db, account.id))[0];
    assert.equal(stored?.includeFilter ?? null, null, 'nothing saved');
  });

  test('a look-behind is said to be unsupported, in plain words', async () => {
    await client.get('/feeds');
    const res = await client.post(`/feeds/${feedId}/filters`, { include: '', exclude: '/(?<=foo)bar/' });
    assert.equal(res.statusCode, 400);
    const error = new RegExp(`<p class="error" id="exclude-${feedId}-error"[^>]*>([^<]*)</p>`).exec(
      res.body,
    )?.[1];
    assert.ok(error !== undefined, 'an error beside the field');
    assert.match(error, /look-behind .* is not supported/);
    assert.doesNotMatch(error, /named capture/);
  });

  test('OPML: no file, or a file that is not OPML, comes back to the Feeds page with the reason', async () => {
    await client.get('/feeds');
    const none = await upload([{ name: '_csrf', value: client.csrf }]);
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /<title>Feeds · Tidings<\/title>/);
    assert.doesNotMatch(none.body, /That request was not understood/);
    assert.match(
      none.body,
      /<p class="error" role="alert" id="opml-error">Choose an OPML file to import\.<\/p>/,
    );
    assert.match(none.body, /id="opml"[^>]*aria-invalid="true"[^>]*aria-describedby="opml-error"/);

    const text = await upload([
      { name: '_csrf', value: client.csrf },
      { name: 'opml', filename: 'notes.txt', value: 'hello' },
    ]);
    assert.equal(text.statusCode, 400);
    assert.match(text.body, /<title>Feeds · Tidings<\/title>/);
    assert.match(text.body, /id="opml-error">That file cannot be imported: /);
  });

  test('OPML: the feeds refused are listed with their address and why', async () => {
    await client.get('/feeds');
    const outlines = [
      '<outline type="rss" text="Fine" xmlUrl="https://fine.example/feed"/>',
      '<outline type="rss" text="Ftp" xmlUrl="ftp://three.example/rss"/>',
      ...Array.from(
        { length: 22 },
        (_, i) => `<outline type="rss" text="Bad ${i}" xmlUrl="gopher://bad${i}.example/"/>`,
      ),
    ];
    const opml = `<?xml version="1.0"?><opml version="2.0"><head/><body>${outlines.join('')}</body></opml>`;
    const res = await upload([
      { name: '_csrf', value: client.csrf },
      { name: 'opml', filename: 'feeds.opml', value: opml },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /Imported 1 feed \(0 you already followed, 23 refused\)/);
    assert.match(res.body, /<li><span class="mono">ftp:\/\/three\.example\/rss<\/span>: [^<]+<\/li>/);
    assert.equal(res.body.match(/<li><span class="mono">(?:ftp|gopher):/g)?.length, 20);
    assert.match(res.body, /and 3 more/);
  });
});
