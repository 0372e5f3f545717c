/**
 * A page of GET /api/entries.json costs the same statements whatever its number (issue 35, point 6;
 * bench:clients times it): the token's check and the page with its count, columns and tags' numbers on
 * PostgreSQL (two round trips); on SQLite, where a statement is no round trip, the tags' numbers are a
 * third. Counted, not timed, on both engines, over every order and the filters KOReader and the Android
 * app use; the walk gives every entry once, in order, with the right total and the tags' numbers. A label
 * never numbered before is numbered on the page that shows it first.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiClient } from '../../accounts/apiClients.js';
import { operatorSetPassword } from '../../accounts/passwords.js';
import { describeEachEngine, newAccount, testServer } from '../../test/harness.js';
import { addReadingItems } from '../../test/readingFixtures.js';
import { countAllStatements } from '../../test/statements.js';

const ENTRIES = 250;
const PER_PAGE = 100;

interface Page {
  total: number;
  pages: number;
  _embedded: { items: { id: number; created_at: string; is_archived: number; tags: { id: number }[] }[] };
}

await describeEachEngine('wallabag entries, statements a page', (ctx) => {
  let app: FastifyInstance;
  let bearer = '';
  let counter: { count: number; stop(): void };
  const perPage = ctx.engine === 'postgres' ? 2 : 3;

  before(async () => {
    const account = await newAccount(ctx.store());
    await addReadingItems(
      ctx.store(),
      account.id,
      Array.from({ length: ENTRIES }, (_, i) => ({
        url: `https://site${i % 7}.example/entry/${i}`,
        // Two entries share each minute: the id decides between them, the same on every page.
        savedAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 60_000).toISOString(),
        state: i % 3 === 0 ? ('archived' as const) : ('unread' as const),
        tags: [`topic${i % 5}`, ...(i % 2 === 0 ? ['even'] : [])],
      })),
    );
    await operatorSetPassword(ctx.store(), account.id, 'a long password', new Date());
    const made = await createApiClient(ctx.store(), account.id, 'counted', new Date());
    assert.ok(made !== null);
    const store = { ...ctx.store() };
    counter = countAllStatements(store);
    app = testServer(store);
    const name = await ctx
      .store()
      .db.selectFrom('accounts')
      .select('name')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    const grant = await app.inject({
      method: 'POST',
      url: '/oauth/v2/token',
      payload: {
        grant_type: 'password',
        client_id: made.client.client_id,
        client_secret: made.clientSecret,
        username: name.name,
        password: 'a long password',
      },
    });
    assert.equal(grant.statusCode, 200, grant.body);
    bearer = `Bearer ${grant.json<{ access_token: string }>().access_token}`;
    // A label gets its number the first time a client sees it (two more statements, once): here.
    const tags = await app.inject({
      method: 'GET',
      url: '/api/tags.json',
      headers: { authorization: bearer },
    });
    assert.equal(tags.json<unknown[]>().length, 6);
  });
  after(() => app.close());

  /** One page, and the statements it cost. */
  const page = async (query: string): Promise<{ status: number; body: Page; statements: number }> => {
    const before = counter.count;
    const res = await app.inject({
      method: 'GET',
      url: `/api/entries.json?${query}`,
      headers: { authorization: bearer },
    });
    return { status: res.statusCode, body: res.json<Page>(), statements: counter.count - before };
  };

  for (const [name, query, expected] of [
    ['newest first (the default)', 'detail=full', ENTRIES],
    ['unread (KOReader: archive=0)', 'archive=0', ENTRIES - Math.ceil(ENTRIES / 3)],
    ['archived, oldest first', 'archive=1&order=asc', Math.ceil(ENTRIES / 3)],
    ['sync order (Android: sort=updated&order=asc&since=0)', 'sort=updated&order=asc&since=0', ENTRIES],
    ['by archiving date', 'sort=archived', ENTRIES],
    ['one tag', 'tags=even', ENTRIES / 2],
  ] as const) {
    test(`${name}: every entry once, two statements a page (three on SQLite)`, async () => {
      const seen: number[] = [];
      let pages = 0;
      for (let n = 1; ; n++) {
        const { status, body, statements } = await page(`${query}&perPage=${PER_PAGE}&page=${n}`);
        assert.equal(status, 200);
        assert.equal(body.total, expected);
        // PostgreSQL reads the tags' numbers in the page's statement; SQLite (no round trips) apart.
        assert.equal(statements, perPage, `page ${n}: the token, the page (and its tags' numbers)`);
        for (const item of body._embedded.items) {
          seen.push(item.id);
          assert.ok(item.tags.length > 0 && item.tags.every((t) => t.id > 0), 'tags have their numbers');
        }
        pages = body.pages;
        if (n >= body.pages) break;
      }
      assert.equal(pages, Math.ceil(expected / PER_PAGE));
      assert.equal(seen.length, expected);
      assert.equal(new Set(seen).size, expected, 'no entry twice, none missed');
      // A page past the end: 404, after the token, the empty page and a count (no row carried one).
      const past = await page(`${query}&perPage=${PER_PAGE}&page=${pages + 1}`);
      assert.equal(past.status, 404);
      assert.equal(past.statements, 3);
    });
  }

  test('the default order is the newest saved first, the id deciding between equal times', async () => {
    const { body } = await page(`perPage=${PER_PAGE}&page=1`);
    const items = body._embedded.items;
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1], items[i]];
      assert.ok(a !== undefined && b !== undefined);
      assert.ok(
        a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id),
        `${a.created_at} #${a.id} before ${b.created_at} #${b.id}`,
      );
    }
  });

  test('a label never seen by a client is numbered on the page that shows it first, then read with the page', async () => {
    const [id] = await ctx
      .store()
      .db.selectFrom('reading_list')
      .select('id')
      .orderBy('saved_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    assert.ok(id !== undefined);
    await ctx
      .store()
      .db.updateTable('reading_list')
      .set({ tags: '\nbrand new\ntopic0\n' })
      .where('id', '=', id.id)
      .execute();
    const first = await page(`perPage=${PER_PAGE}&page=1`);
    const shown = first.body._embedded.items.find((i) => i.id === id.id);
    assert.ok(shown !== undefined);
    assert.equal(shown.tags.length, 2);
    assert.ok(
      shown.tags.every((t) => t.id > 0),
      'the new label has its number at once',
    );
    assert.ok(first.statements > perPage, 'numbering it took more statements, once');
    const again = await page(`perPage=${PER_PAGE}&page=1`);
    assert.equal(again.statements, perPage);
    const same = again.body._embedded.items.find((i) => i.id === id.id);
    assert.deepEqual(same?.tags, shown.tags, 'the same numbers the second time');
  });
});
