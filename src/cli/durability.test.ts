/**
 * A saved URL whose POST was answered 2xx is durable: SIGKILL the real server the moment the answer
 * arrives, start it again, and the URL is in the queue. Real processes, real TCP, real databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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

interface Sent {
  url: string;
  title: string;
  variant: 'A' | 'B';
  form: boolean;
}

function postPath(server: ServerProcess, apiKey: string, variant: 'A' | 'B'): string {
  return variant === 'A'
    ? `${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`
    : `${server.baseUrl}/api?api_key=${apiKey}`;
}

function encode(item: Sent): { headers: Record<string, string>; body: string } {
  if (item.form) {
    return {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: item.url, title: item.title }).toString(),
    };
  }
  return {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: item.url, title: item.title }),
  };
}

/**
 * Sends every item concurrently and SIGKILLs the server synchronously in the response callback of
 * the last one to be answered. Returns the status each item got (0 when it got none).
 */
async function postThenKill(server: ServerProcess, apiKey: string, items: Sent[]): Promise<number[]> {
  const statuses = items.map(() => 0);
  let answered = 0;
  const done = items.map((item, i) => {
    const { headers, body } = encode(item);
    return request(postPath(server, apiKey, item.variant), {
      method: 'POST',
      headers,
      body,
      onResponse: (status) => {
        statuses[i] = status;
        if (++answered === items.length) server.child.kill('SIGKILL');
      },
    }).catch(() => undefined); // the body may be cut off by the kill; the status is what counts
  });
  await Promise.all(done);
  const exit = await exitWithin(server, 5000);
  assert.equal(exit.signal, 'SIGKILL', 'the server was killed, not stopped cleanly');
  return statuses;
}

async function queueOverTcp(
  server: ServerProcess,
  apiKey: string,
  variant: 'A' | 'B',
): Promise<{ url: string; title: string }[]> {
  const path = variant === 'A' ? `/api/v1/articles?apiKey=${apiKey}` : `/api?api_key=${apiKey}`;
  const res = await request(`${server.baseUrl}${path}`);
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body) as { url: string; title: string }[];
}

for (const engine of ENGINES) {
  describe(
    `durability of answered POSTs [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase | undefined;
      let apiKey = '';
      const servers: ServerProcess[] = [];

      async function start(): Promise<ServerProcess> {
        if (db === undefined) throw new Error('no database');
        const server = await startServer({ databaseUrl: db.url });
        servers.push(server);
        return server;
      }

      before(async () => {
        db = await createTestDatabase(engine);
        ({ apiKey } = await createAccountViaCli(db.url, 'durability'));
      });

      after(async () => {
        await Promise.all(servers.map((s) => s.stop()));
        await db?.drop();
      });

      test('one POST answered 2xx survives a SIGKILL sent the moment the answer arrives', async () => {
        const item: Sent = {
          url: 'https://example.com/one?x=1',
          title: 'Only one',
          variant: 'A',
          form: false,
        };
        const first = await start();
        const [status] = await postThenKill(first, apiKey, [item]);
        assert.equal(status, 200);

        const second = await start();
        try {
          const queue = await queueOverTcp(second, apiKey, 'A');
          assert.deepEqual(
            queue.find((q) => q.url === item.url),
            { url: item.url, title: item.title },
          );
        } finally {
          await second.stop();
        }
      });

      test('20 concurrent POSTs (both variants, JSON and form) all survive a SIGKILL after the last answer', async () => {
        const items: Sent[] = Array.from({ length: 20 }, (_, i) => ({
          url: `https://example.org/burst/${i}?engine=${engine}`,
          title: `Burst item ${i} — ünïcode`,
          variant: i % 2 === 0 ? 'A' : 'B',
          form: i % 4 < 2,
        }));
        const first = await start();
        const statuses = await postThenKill(first, apiKey, items);
        assert.deepEqual(
          statuses,
          items.map(() => 200),
          'every POST of the burst was answered 200 before the kill',
        );

        const second = await start();
        try {
          const viaA = await queueOverTcp(second, apiKey, 'A');
          const viaB = await queueOverTcp(second, apiKey, 'B');
          assert.deepEqual(viaA, viaB, 'both variants show the same queue');
          const answered = items.filter((_, i) => (statuses[i] ?? 0) >= 200 && (statuses[i] ?? 0) < 300);
          for (const item of answered) {
            assert.deepEqual(
              viaA.find((q) => q.url === item.url),
              { url: item.url, title: item.title },
              `${item.url} was answered 2xx before the kill but is not in the queue after a restart`,
            );
          }
          assert.equal(viaA.filter((q) => q.url.includes('/burst/')).length, 20, 'no duplicates, none lost');
        } finally {
          await second.stop();
        }
      });

      test('sequential POSTs, each followed by a SIGKILL and a restart, accumulate', async () => {
        const urls: string[] = [];
        for (let i = 0; i < 3; i++) {
          const item: Sent = {
            url: `http://example.net/sequence/${i}`,
            title: `Sequence ${i}`,
            variant: i % 2 === 0 ? 'B' : 'A',
            form: i === 1,
          };
          const server = await start();
          const [status] = await postThenKill(server, apiKey, [item]);
          assert.equal(status, 200);
          urls.push(item.url);
        }
        const last = await start();
        try {
          const queue = await queueOverTcp(last, apiKey, 'B');
          assert.deepEqual(
            queue.map((q) => q.url).filter((u) => u.includes('/sequence/')),
            urls,
            'all three, in the order they were saved',
          );
        } finally {
          await last.stop();
        }
      });
    },
  );
}
