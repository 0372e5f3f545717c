import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiClient, revokeApiClient } from '../../accounts/apiClients.js';
import { operatorSetPassword } from '../../accounts/passwords.js';
import { readingListView, setReadingItemState } from '../../accounts/readingList.js';
import type { AccountId } from '../../lib/authorized.js';
import { describeEachEngine, newAccount, testServer } from '../../test/harness.js';
import { addReadingItems } from '../../test/readingFixtures.js';
import {
  AndroidClient,
  type Credentials,
  KoreaderClient,
  WallabaggerClient,
} from '../../test/wallabagClients.js';

/**
 * Issue 35, points 2, 3 and 5: the wallabag API driven as KOReader's plugin, the Android app's library and
 * Wallabagger drive it (src/test/wallabagClients.ts reproduces their requests), over a real HTTP server on
 * both engines: the reading list is what they list, save, archive, tag and delete, a save is queued as the
 * person's own link, and archiving is the same state the web app shows.
 */

type Json = Record<string, unknown>;
const PASSWORD = 'correct horse battery staple';

await describeEachEngine('wallabag clients', (ctx) => {
  let app: FastifyInstance;
  let server = '';
  before(async () => {
    app = testServer(ctx.store());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    server = `http://127.0.0.1:${address.port}`;
  });
  after(() => app.close());
  const store = () => ctx.store();

  /** An account with a password and one client: what a person types into the app. */
  async function person(): Promise<Credentials & { accountId: AccountId; clientRowId: number }> {
    const account = await newAccount(store());
    await operatorSetPassword(store(), account.id, PASSWORD, new Date());
    const made = await createApiClient(store(), account.id, 'e-reader', new Date());
    assert.ok(made !== null);
    const name = (
      await store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow()
    ).name;
    return {
      server,
      clientId: made.client.client_id,
      clientSecret: made.clientSecret,
      username: name,
      password: PASSWORD,
      accountId: account.id,
      clientRowId: made.client.id,
    };
  }

  const queued = (accountId: number) =>
    store()
      .db.selectFrom('queue_items')
      .select(['url', 'source'])
      .where('account_id', '=', accountId)
      .execute();

  test('KOReader: sign in, add with tags, list unread page by page, archive, delete', async () => {
    const p = await person();
    const ko = new KoreaderClient(p);
    const token = await ko.getBearerToken();
    assert.equal(token.status, 200);
    const t = token.json as Json;
    assert.equal(t.token_type, 'bearer');
    assert.equal(t.expires_in, 3600);
    assert.equal(typeof t.refresh_token, 'string');
    assert.ok('scope' in t);

    const added = await ko.addArticle('https://news.example/long-read', 'ereader,later');
    assert.equal(added.status, 200, added.text);
    const entry = added.json as Json;
    assert.deepEqual(
      (entry.tags as Json[]).map((x) => x.label),
      ['ereader', 'later'],
    );
    assert.equal(entry.is_archived, 0);
    // Queued as the person's own link, as a seed API save is.
    assert.deepEqual(await queued(p.accountId), [{ url: 'https://news.example/long-read', source: 'api' }]);

    for (let i = 0; i < 4; i++) await ko.addArticle(`https://news.example/${i}`, '');
    const list = await ko.getArticleList(3);
    assert.equal(list.length, 3);
    const all = await ko.getArticleList(50); // page 1 has 5, page 2 is the 404 that ends the loop
    assert.equal(all.length, 5);
    const tagged = await ko.getArticleList(50, 'ereader');
    assert.deepEqual(
      tagged.map((e) => e.url),
      ['https://news.example/long-read'],
    );

    const id = Number(entry.id);
    const archived = await ko.archive(id);
    assert.equal(archived.status, 200);
    assert.equal((archived.json as Json).is_archived, 1);
    assert.equal(typeof (archived.json as Json).archived_at, 'string');
    const web = await readingListView(
      store(),
      p.accountId,
      { state: 'archived', tag: null },
      { offset: 0, limit: 10 },
    );
    assert.deepEqual(
      web.items.map((i) => i.id),
      [id],
    );
    assert.equal((await ko.getArticleList(50)).length, 4);

    const tags = await ko.addTags(id, 'finished');
    assert.deepEqual(
      ((tags.json as Json).tags as Json[]).map((x) => x.label),
      ['ereader', 'later', 'finished'],
    );

    assert.equal((await ko.delete(id)).status, 200);
    assert.equal((await ko.get(`/api/entries/${id}.json`)).status, 404);
  });

  test('the Android app: form sign-in, sync, add, change, exists by hash, refresh, export, delete', async () => {
    const p = await person();
    const android = new AndroidClient(p);
    assert.equal((await android.token()).status, 200);
    assert.equal((await android.version()).json, '2.6.10');
    assert.equal(((await android.info()).json as Json).appname, 'wallabag');

    const before = Math.floor(Date.now() / 1000) - 5;
    const saved = await android.add('https://blog.example/post?id=7', { title: 'A post', tags: 'android' });
    assert.equal(saved.status, 200, saved.text);
    const id = Number((saved.json as Json).id);
    assert.equal((saved.json as Json).title, 'A post');

    const synced = await android.sync(before, 2);
    assert.deepEqual(
      synced.map((e) => e.id),
      [id],
    );
    assert.equal((await android.sync(Math.floor(Date.now() / 1000) + 3600)).length, 0);

    const changed = await android.modify(id, { archive: '1', starred: '1', tags: 'phone' });
    assert.equal(changed.status, 200, changed.text);
    const c = changed.json as Json;
    assert.equal(c.is_archived, 1);
    assert.equal(c.is_starred, 1);
    assert.deepEqual(
      (c.tags as Json[]).map((x) => x.label),
      ['android', 'phone'],
    );

    const exists = await android.exists('https://blog.example/post?id=7');
    assert.deepEqual(exists.json, { exists: id });
    assert.deepEqual((await android.exists('https://blog.example/other')).json, { exists: null });

    const txt = await android.export(id, 'txt');
    assert.equal(txt.status, 200);
    assert.match(txt.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(txt.text, /^A post\nhttps:\/\/blog\.example\/post\?id=7\n/);
    const html = await android.export(id, 'html');
    assert.match(html.text, /<title>A post<\/title>/);

    const oldRefresh = android.refreshToken;
    assert.equal((await android.refresh()).status, 200);
    assert.notEqual(android.refreshToken, oldRefresh);
    android.refreshToken = oldRefresh; // a refresh token is used once
    const reused = await android.refresh();
    assert.equal(reused.status, 400);
    assert.equal((reused.json as Json).error, 'invalid_grant');

    assert.deepEqual((await android.deleteWithId(id)).json, { id });
  });

  test('Wallabagger: version, save, the same URL again, exists, tags, star, delete', async () => {
    const p = await person();
    const w = new WallabaggerClient(p);
    assert.equal((await w.checkUrl()).json, '2.6.10');
    assert.equal((await w.passwordToken()).status, 200);
    const first = await w.savePage('https://site.example/article');
    assert.equal(first.status, 200, first.text);
    const id = Number((first.json as Json).id);
    const again = await w.savePage('https://site.example/article');
    assert.equal((again.json as Json).id, id);
    assert.deepEqual((await w.entryExists('https://site.example/article')).json, { exists: true });
    assert.deepEqual((await w.entryExists('https://site.example/nope')).json, { exists: false });

    const tagged = await w.saveTags(id, 'web,Reading List');
    assert.equal(tagged.status, 200, tagged.text);
    const tags = (await w.getArticleTags(id)).json as Json[];
    assert.deepEqual(
      tags.map((x) => [x.label, x.slug]),
      [
        ['web', 'web'],
        ['reading list', 'reading-list'],
      ],
    );
    assert.deepEqual(((await w.getTags()).json as Json[]).map((x) => x.label).sort(), [
      'reading list',
      'web',
    ]);
    const web = tags[0];
    assert.ok(web !== undefined);
    const untagged = await w.deleteArticleTag(id, Number(web.id));
    assert.deepEqual(
      ((untagged.json as Json).tags as Json[]).map((x) => x.label),
      ['reading list'],
    );

    assert.equal(((await w.saveStarred(id, true)).json as Json).is_starred, 1);
    assert.equal(((await w.saveStarred(id, false)).json as Json).is_starred, 0);
    assert.equal(((await w.saveTitle(id, 'My title')).json as Json).title, 'My title');
    assert.equal((await w.deleteArticle(id)).status, 200);
    assert.equal((await w.deleteArticle(id)).status, 404);
  });

  test('archived in the web app is archived for the clients, and back', async () => {
    const p = await person();
    const [id] = await addReadingItems(store(), p.accountId, [
      { url: 'https://imported.example/a', savedAt: '2024-01-01T00:00:00.000Z' },
    ]);
    assert.ok(id !== undefined);
    const ko = new KoreaderClient(p);
    await ko.getBearerToken();
    assert.equal((await ko.getArticleList(10)).length, 1);
    await setReadingItemState(store(), p.accountId, id, 'archived');
    assert.equal((await ko.getArticleList(10)).length, 0);
    const entry = (await ko.get(`/api/entries/${id}.json`)).json as Json;
    assert.equal(entry.is_archived, 1);
    await setReadingItemState(store(), p.accountId, id, 'unread');
    assert.equal((await ko.getArticleList(10)).length, 1);
  });

  test("a client never reaches another account's entries, nor signs it in", async () => {
    const a = await person();
    const b = await person();
    const koA = new KoreaderClient(a);
    const koB = new KoreaderClient(b);
    await koA.getBearerToken();
    await koB.getBearerToken();
    const id = Number(((await koA.addArticle('https://private.example/a', 'mine')).json as Json).id);
    assert.equal((await koB.get(`/api/entries/${id}.json`)).status, 404);
    assert.equal((await koB.archive(id)).status, 404);
    assert.equal((await koB.delete(id)).status, 404);
    assert.equal((await koB.get(`/api/entries/${id}/export.txt`)).status, 404);
    assert.equal((await koB.getArticleList(50)).length, 0);
    assert.deepEqual((await koB.get('/api/tags.json')).json, []);
    assert.equal((await koA.get(`/api/entries/${id}.json`)).status, 200);
    // A's client with B's (right) password: refused like a wrong one.
    const crossed = new KoreaderClient({ ...a, username: b.username, password: b.password });
    const refused = await crossed.getBearerToken();
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error: 'invalid_grant',
      error_description: 'Invalid username and password combination',
    });
  });

  test('revoking a client ends its tokens at once', async () => {
    const p = await person();
    const ko = new KoreaderClient(p);
    await ko.getBearerToken();
    assert.equal((await ko.get('/api/entries.json')).status, 200);
    await revokeApiClient(store(), p.accountId, p.clientRowId);
    const after = await ko.get('/api/entries.json');
    assert.equal(after.status, 401);
    assert.equal((after.json as Json).error, 'invalid_grant');
    assert.equal((await ko.getBearerToken()).status, 401);
  });
});
