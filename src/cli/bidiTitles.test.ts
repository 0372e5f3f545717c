import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { feedByUrl } from '../store/feeds.js';
import { hoursAgo, queueRows, serveFeed } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { runCli } from './run.js';

/**
 * Bidi controls (U+202E and the rest) never reach a title or a name as it is stored or shown (issue 25,
 * F7): a saved link's title, a feed's title and its items' titles lose them on the way in, and the CLI's
 * feed list drops them from what was stored before. The marks (LRM, RLM, ALM), which right-to-left
 * titles use, are kept (issue 33).
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
/** A Persian headline that ends with an RLM, which keeps its "?" with the right-to-left words. */
const PERSIAN = '\u0686\u0647 \u062e\u0628\u0631\u061f\u200f';

await describeEachEngine('bidi controls in titles', (ctx) => {
  let server: FeedServer;
  let app: FastifyInstance;
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    assert.equal(code, 0, err.join('\n'));
    return out;
  };

  before(async () => {
    server = await FeedServer.start('127.0.0.1');
    app = testServer(ctx.store());
    await app.ready();
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  test('a title saved through the API loses its bidi controls', async () => {
    const { id, apiKey } = await newAccount(ctx.store());
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/articles?apiKey=${apiKey}`,
      payload: {
        url: 'https://bidi.example/a',
        title: 'Invoice \u202Egnp.exe\u202C for \u2067you\u2069\u200F',
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const rows = await queueRows(ctx.store(), id);
    assert.deepEqual(
      rows.map((r) => r.title),
      ['Invoice gnp.exe for you\u200F'],
    );
  });

  test("a feed's title and its items' titles lose them; the CLI's list never prints one", async () => {
    const feed = serveFeed(server, '/bidi.xml', {
      title: 'News \u202Ewen\u202C\u061C',
      items: [
        { link: 'https://bidi.example/item', title: 'Item \u202Edrowssap', published: hoursAgo(2) },
        { link: 'https://bidi.example/fa', title: `\u2067${PERSIAN}\u2069`, published: hoursAgo(1) },
      ],
    });
    const { id } = await newAccount(ctx.store());
    await cli('feed', 'add', '--account', String(id), feed.url);
    assert.equal((await feedByUrl(ctx.store().db, feed.url))?.title, 'News wen\u061C');
    assert.deepEqual((await queueRows(ctx.store(), id)).map((r) => r.title).sort(), [
      'Item drowssap',
      PERSIAN,
    ]);

    // A name stored before this rule existed is still printed without its controls.
    await ctx
      .store()
      .db.updateTable('subscriptions')
      .set({ title: 'Mine \u202Eenim' })
      .where('account_id', '=', id)
      .execute();
    const list = await cli('feed', 'list', '--account', String(id));
    assert.match(list.join('\n'), /\tMine enim\t/);
    const json = await cli('feed', 'list', '--account', String(id), '--json');
    assert.equal((JSON.parse(json[0] ?? '{}') as { title: string }).title, 'Mine enim');
    for (const line of [...list, ...json]) assert.doesNotMatch(line, BIDI);
  });
});
