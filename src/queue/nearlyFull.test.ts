import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { removeQueuedItem } from './remove.js';

/**
 * A queue one place short of its limit takes one more save: after removals in its middle, its ids span more than the
 * limit, so its length bound is read again, and the plan made after the insert must not count the row the
 * transaction just wrote (it answered 500 "a queue changed under its lock").
 */
await describeEachEngine('a nearly full queue', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = testServer(ctx.store(), { queueLimit: 5 });
    await app.ready();
  });
  after(() => app.close());

  test('the last place is taken, the next save is refused as full, nothing else', async () => {
    const account = await newAccount(ctx.store());
    const save = (url: string) =>
      app.inject({ method: 'POST', url: `/api/v1/articles?apiKey=${account.apiKey}`, payload: { url } });
    for (const n of ['a', 'b', 'c', 'd', 'e'])
      assert.equal((await save(`https://x.example/${n}`)).statusCode, 200);
    const rows = await ctx
      .store()
      .db.selectFrom('queue_items')
      .select('id')
      .where('account_id', '=', account.id)
      .orderBy('id')
      .execute();
    const ids = rows.map((r) => r.id);
    for (const id of ids.slice(1, 3)) assert.ok(await removeQueuedItem(ctx.store(), account.id, id));
    assert.equal((await save('https://x.example/f')).statusCode, 200);
    const last = await save('https://x.example/g');
    assert.equal(last.statusCode, 200, last.body);
    const full = await save('https://x.example/h');
    assert.notEqual(full.statusCode, 500, full.body);
    assert.ok(
      full.statusCode >= 400 && full.statusCode < 500,
      `refused as full: ${full.statusCode} ${full.body}`,
    );
    const after = await app.inject({ method: 'GET', url: `/api/v1/articles?apiKey=${account.apiKey}` });
    assert.equal(after.json<unknown[]>().length, 5);
  });
});
