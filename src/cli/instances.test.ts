import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import {
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  request,
  runCli,
  startServer,
} from '../test/process.js';

/**
 * Two `tidings serve` processes on one PostgreSQL database, changed by a third (the CLI): each caches keys
 * and queue versions and hears of the change by LISTEN/NOTIFY (docs/operating.md, several instances).
 */
await describe('serve processes on one PostgreSQL database', { skip: await postgresSkipReason() }, () => {
  let db: TestDatabase | undefined;
  const servers: ServerProcess[] = [];

  before(async () => {
    assertBuilt();
    db = await createTestDatabase('postgres');
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await db?.drop();
  });

  const list = (server: ServerProcess, key: string) =>
    request(`${server.baseUrl}/api/v1/articles?apiKey=${key}`);

  /** Requests every 10 ms until `done` holds for an answer on every server; the milliseconds it took. */
  const within = async (done: (r: { status: number; body: string }) => boolean): Promise<number> => {
    const start = Date.now();
    const pending = new Set(servers);
    while (pending.size > 0) {
      assert.ok(Date.now() - start < 5000, 'not seen after 5 s');
      for (const s of [...pending]) if (done(await list(s, key))) pending.delete(s);
      await new Promise((r) => setTimeout(r, 10));
    }
    return Date.now() - start;
  };
  let key = '';

  test('a key revoked by the CLI is refused by both within 1 s; a save on one is listed by the other', async () => {
    assert.ok(db !== undefined);
    const databaseUrl = db.url;
    const account = await createAccountViaCli(databaseUrl, 'instances');
    const created = await runCli(['key', 'create', '--account', String(account.id), '--json'], {
      DATABASE_URL: databaseUrl,
    });
    assert.equal(created.code, 0, created.stderr);
    const second = JSON.parse(created.stdout) as { id: number; apiKey: string };
    servers.push(await startServer({ databaseUrl, env: { TIDINGS_WORKER: 'false' } }));
    servers.push(await startServer({ databaseUrl, env: { TIDINGS_WORKER: 'false' } }));
    const [one, two] = servers;
    assert.ok(one !== undefined && two !== undefined);

    key = account.apiKey;
    const saved = await request(`${one.baseUrl}/api/v1/articles?apiKey=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/across' }),
    });
    assert.equal(saved.status, 200, saved.body);
    await within((r) => r.status === 200 && r.body.includes('https://example.com/across'));

    key = second.apiKey;
    // Both serve it, then for a while longer: by then each answers it from memory.
    await within((r) => r.status === 200);
    await new Promise((r) => setTimeout(r, 300));
    await within((r) => r.status === 200);
    const revoked = await runCli(['key', 'revoke', String(second.id)], { DATABASE_URL: databaseUrl });
    assert.equal(revoked.code, 0, revoked.stderr);
    const took = await within((r) => r.status === 401);
    assert.ok(took < 1000, `refused by both after ${took} ms`);
  });
});
