/**
 * `tidings serve` listens before its start-up is done (issue 26): /healthz answers 200 at once, /readyz 503
 * until the database is open and migrated, and a save sent meanwhile waits and is then answered as usual.
 * On PostgreSQL the database is held unreachable (a cut TCP proxy) so that start-up is caught in the middle;
 * on SQLite the save is sent the moment /healthz first answers, during the rest of the modules' loading.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ADMIN_URL,
  ENGINES,
  type TestDatabase,
  createTestDatabase,
  postgresSkipReason,
} from '../test/databases.js';
import {
  DIST_MAIN,
  assertBuilt,
  childEnv,
  createAccountViaCli,
  freePort,
  request,
  startTcpProxy,
} from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

/** Spawns serve and resolves at its first 200 from /healthz, not at its "listening" line. */
async function spawnServe(databaseUrl: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [DIST_MAIN, 'serve', '--no-worker'], {
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  child.stdout.resume();
  const base = `http://127.0.0.1:${port}`;
  const end = Date.now() + 20_000;
  for (;;) {
    const health = await request(`${base}/healthz`).catch(() => null);
    if (health !== null) {
      assert.equal(health.status, 200, health.body);
      assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
      break;
    }
    if (Date.now() > end || child.exitCode !== null) throw new Error(`/healthz never answered:\n${stderr}`);
    await delay(5);
  }
  const listening = (): boolean => stderr.split('\n').some((l) => l.includes('"msg":"listening"'));
  return { base, child, listening, stderr: () => stderr };
}

for (const engine of ENGINES) {
  describe(
    `tidings serve while starting [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : false },
    () => {
      const databases: TestDatabase[] = [];
      after(async () => {
        for (const db of databases) await db.drop();
      });

      test('/healthz answers at once; a save sent during start-up is answered once ready', async () => {
        const db = await createTestDatabase(engine);
        databases.push(db);
        const { apiKey } = await createAccountViaCli(db.url, 'starting');
        const proxy =
          engine === 'postgres'
            ? await startTcpProxy({
                host: new URL(ADMIN_URL).hostname,
                port: Number(new URL(ADMIN_URL).port || 5432),
              })
            : null;
        let url = db.url;
        if (proxy !== null) {
          await proxy.cut();
          const viaProxy = new URL(db.url);
          viaProxy.host = `127.0.0.1:${proxy.port}`;
          url = viaProxy.toString();
        }
        const server = await spawnServe(url);
        try {
          const api = `${server.base}/api/v1/articles?apiKey=${apiKey}`;
          const save = request(api, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url: 'https://example.com/early', title: 'Early' }),
          });
          if (proxy !== null) {
            // The database is unreachable: start-up cannot be over, and the save must still be waiting.
            let answered = false;
            void save.then(() => (answered = true));
            const ready = await request(`${server.base}/readyz`);
            assert.equal(ready.status, 503, ready.body);
            assert.equal(ready.headers['retry-after'], '5');
            const body = JSON.parse(ready.body) as Record<string, unknown>;
            assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
            assert.equal(body.code, 50301);
            assert.equal((await request(`${server.base}/healthz`)).status, 200);
            await delay(300);
            assert.equal(answered, false, 'the save was answered before start-up was done');
            assert.equal(server.listening(), false, server.stderr());
            await proxy.restore();
          }
          const saved = await save;
          assert.equal(saved.status, 200, saved.body);
          const list = await request(api);
          assert.equal(list.status, 200, list.body);
          const items = JSON.parse(list.body) as { url: string }[];
          assert.deepEqual(
            items.map((i) => i.url),
            ['https://example.com/early'],
          );
          assert.equal((await request(`${server.base}/readyz`)).status, 200);
        } finally {
          server.child.kill('SIGTERM');
          await new Promise((resolve) => server.child.once('close', resolve));
          await proxy?.close();
        }
      });
    },
  );
}
