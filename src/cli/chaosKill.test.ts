/**
 * Reliability suite (`npm run test:chaos`): SIGKILL the real server at arbitrary moments while clients
 * flood it with saves through both API variants, restart it, and do it again. Every save that was answered
 * 2xx must be in the queue at the end: 0 acknowledged saves lost. Real processes, real TCP, both engines.
 * (durability.test.ts kills at the moment of an answer; this kills in the middle of the traffic.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import {
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  exitWithin,
  request,
  startServer,
} from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const CLIENTS = 8;
const KILLS = 4;

/** What the flood saw: URLs answered 2xx, and how each request ended. */
interface Flood {
  acknowledged: Set<string>;
  statuses: Map<number | string, number>;
}

function postOne(server: ServerProcess, apiKey: string, n: number): Promise<{ status: number }> {
  const url = `https://chaos.example/kill/${n}?v=${n % 2 === 0 ? 'a' : 'b'}`;
  const title = `Saved during the storm ${n}`;
  const path = n % 2 === 0 ? `/api/v1/articles?apiKey=${apiKey}` : `/api?api_key=${apiKey}`;
  const form = n % 3 === 0;
  return request(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? new URLSearchParams({ url, title }).toString() : JSON.stringify({ url, title }),
  });
}

for (const engine of ENGINES) {
  describe(
    `SIGKILL during a flood of saves [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase | undefined;
      let apiKey = '';
      let server: ServerProcess | undefined;

      before(async () => {
        db = await createTestDatabase(engine);
        ({ apiKey } = await createAccountViaCli(db.url, 'chaos'));
      });
      after(async () => {
        await server?.stop();
        await db?.drop();
      });

      test(`${KILLS} kills mid-flood, ${CLIENTS} clients: every save answered 2xx is kept`, async (t) => {
        if (db === undefined) throw new Error('no database');
        const databaseUrl = db.url;
        server = await startServer({ databaseUrl, env: { TIDINGS_WORKER: 'false' } });
        const flood: Flood = { acknowledged: new Set(), statuses: new Map() };
        let next = 0;
        let running = true;
        const client = async (): Promise<void> => {
          while (running) {
            const current = server;
            const n = next++;
            if (current === undefined) break;
            const status = await postOne(current, apiKey, n).then(
              (r) => r.status,
              (err: unknown) => (err as NodeJS.ErrnoException).code ?? 'error',
            );
            flood.statuses.set(status, (flood.statuses.get(status) ?? 0) + 1);
            if (typeof status === 'number' && status >= 200 && status < 300)
              flood.acknowledged.add(`https://chaos.example/kill/${n}?v=${n % 2 === 0 ? 'a' : 'b'}`);
            else if (typeof status !== 'number') await sleep(10); // down: wait for the restart
          }
        };
        const clients = Array.from({ length: CLIENTS }, () => client());
        for (let round = 0; round < KILLS; round++) {
          const start = flood.acknowledged.size;
          // Let saves flow, then kill at a moment unrelated to any answer.
          while (flood.acknowledged.size - start < 40) await sleep(5);
          await sleep(Math.floor(Math.random() * 150));
          server.child.kill('SIGKILL');
          const exit = await exitWithin(server, 5000);
          assert.equal(exit.signal, 'SIGKILL');
          server = await startServer({ databaseUrl, env: { TIDINGS_WORKER: 'false' } });
        }
        running = false;
        await Promise.all(clients);

        const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`);
        assert.equal(res.status, 200, res.body);
        const queued = new Set((JSON.parse(res.body) as { url: string }[]).map((i) => i.url));
        const lost = [...flood.acknowledged].filter((url) => !queued.has(url));
        assert.deepEqual(lost, [], `acknowledged but lost after ${KILLS} kills`);
        // Nothing but successes, refusals of a server going down, and connections that found it down.
        const fives = [...flood.statuses].filter(([s]) => typeof s === 'number' && s >= 500 && s !== 503);
        assert.deepEqual(fives, [], `no 5xx other than 503: ${JSON.stringify([...flood.statuses])}`);
        t.diagnostic(
          `${flood.acknowledged.size} saves acknowledged, all kept; ${JSON.stringify([...flood.statuses])}`,
        );
        // Both variants read the same queue.
        const b = await request(`${server.baseUrl}/api?api_key=${apiKey}`);
        assert.equal((JSON.parse(b.body) as unknown[]).length, queued.size);
      });
    },
  );
}
