import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { strToU8 } from 'fflate';
import { operatorAccount } from '../accounts/authorize.js';
import { subscribe } from '../feeds/subscribe/subscribe.js';
import { importReadingList } from '../imports/importLinks.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import {
  hoursAgo,
  makeDue,
  queueUrls,
  serveFeed,
  testRefreshDeps,
  useFeedServer,
  waitFor,
} from '../test/feedFixtures.js';
import { newAccount } from '../test/harness.js';
import { DIST_MAIN, assertBuilt, childEnv } from '../test/process.js';

/** `tidings worker` as a process: it polls a feed into a queue, and stops cleanly on SIGTERM and SIGINT. */

interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

function startWorker(databaseUrl: string, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, [DIST_MAIN, 'worker'], {
    env: childEnv({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
      ...env,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = once(child, 'close').then(([code, signal]) => {
    running.delete(child);
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  return { child, stderr: () => stderr, exited };
}

/** Whether the process has logged a line with this message. */
const logged = (worker: WorkerProcess, msg: string): boolean =>
  worker
    .stderr()
    .split('\n')
    .some((line) => line.includes(`"msg":"${msg}"`));

/** Sends the signal once the worker runs; how long it took to exit, and how it exited. */
async function stopWith(
  worker: WorkerProcess,
  signal: NodeJS.Signals,
): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
  await waitFor('the worker to start', () => Promise.resolve(logged(worker, 'worker started')));
  const started = performance.now();
  worker.child.kill(signal);
  const exit = await Promise.race([
    worker.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => {
        reject(new Error(`still running 5 s after ${signal}; stderr:\n${worker.stderr()}`));
      }, 5000).unref(),
    ),
  ]);
  return { ms: performance.now() - started, ...exit };
}

const server = useFeedServer();
let dir: string;
let store: Store;
before(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'tidings-worker-'));
  store = openStore(join(dir, 'tidings.db'));
  await migrateToLatest(store);
});
after(async () => {
  for (const child of running) child.kill('SIGKILL');
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

test('tidings worker polls a feed into the queue, and exits 0 promptly on SIGTERM, then on SIGINT', async (t) => {
  const feed = serveFeed(server(), '/worker.xml', {
    title: 'Worker',
    items: [{ link: 'https://worker.example/first', title: 'First', published: hoursAgo(1) }],
  });
  const account = await newAccount(store);
  // As after an OPML import: known, due, never fetched; the worker process makes the first fetch.
  const { feed: row } = await subscribe(testRefreshDeps(store), account.id, { url: feed.url, trusted: true });
  assert.equal(feed.requests().length, 0);

  const first = startWorker(join(dir, 'tidings.db'));
  await waitFor('the first item in the queue', async () => (await queueUrls(store, account.id)).length === 1);
  assert.deepEqual(await queueUrls(store, account.id), ['https://worker.example/first']);
  const term = await stopWith(first, 'SIGTERM');
  assert.deepEqual([term.code, term.signal], [0, null], first.stderr());
  assert.ok(logged(first, 'worker stopped'), first.stderr());
  assert.ok(term.ms < 2000, `SIGTERM: exited after ${Math.round(term.ms)} ms`);
  t.diagnostic(`SIGTERM: exited 0 after ${Math.round(term.ms)} ms`);

  feed.items.unshift({ link: 'https://worker.example/second', title: 'Second', published: new Date() });
  await makeDue(store, row.id);
  const second = startWorker(join(dir, 'tidings.db'));
  await waitFor(
    'the second item in the queue',
    async () => (await queueUrls(store, account.id)).length === 2,
  );
  const int = await stopWith(second, 'SIGINT');
  assert.deepEqual([int.code, int.signal], [0, null], second.stderr());
  assert.ok(int.ms < 2000, `SIGINT: exited after ${Math.round(int.ms)} ms`);
  t.diagnostic(`SIGINT: exited 0 after ${Math.round(int.ms)} ms`);
  assert.deepEqual(await queueUrls(store, account.id), [
    'https://worker.example/first',
    'https://worker.example/second',
  ]);
  assert.equal(feed.requests().length, 2, 'one fetch per worker run');
});

test('a worker stuck in a fetch that never answers exits 1 once TIDINGS_SHUTDOWN_TIMEOUT_MS has passed', async () => {
  // Accepts connections and never answers: the fetch would run into its 30 s timeout.
  const silent = createServer(() => undefined);
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const address = silent.address();
  assert.ok(address !== null && typeof address !== 'string');
  let asked = false;
  silent.on('request', () => (asked = true));
  try {
    const account = await newAccount(store);
    const url = `http://127.0.0.1:${address.port}/silent.xml`;
    await subscribe(testRefreshDeps(store), account.id, { url, trusted: true });
    const worker = startWorker(join(dir, 'tidings.db'), { TIDINGS_SHUTDOWN_TIMEOUT_MS: '500' });
    await waitFor('the worker to ask the silent server', () => Promise.resolve(asked));
    const exit = await stopWith(worker, 'SIGTERM');
    assert.deepEqual([exit.code, exit.signal], [1, null], worker.stderr());
    assert.ok(logged(worker, 'shutdown timed out; exiting'), worker.stderr());
    assert.ok(exit.ms >= 450 && exit.ms < 4000, `exited after ${Math.round(exit.ms)} ms`);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});

test("tidings worker reads an imported link's page in the background; TIDINGS_READING_LIST_PACE=0 turns that off", async () => {
  const url = server().route('/imported', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<title>Imported</title><article><p>Read by the reading list.</p></article>'),
  );
  const account = await operatorAccount(store, (await newAccount(store)).id);
  const csv = `title,url,time_added,tags,status\n,${url},1500000000,,unread\n`;
  assert.equal((await importReadingList(store, account, strToU8(csv), 'pocket')).imported, 1);
  const pageState = async (): Promise<string | null> => {
    const row = await store.db
      .selectFrom('reading_list as r')
      .leftJoin('pages as p', 'p.id', 'r.page_id')
      .select('p.state')
      .where('r.account_id', '=', account)
      .executeTakeFirst();
    return row?.state ?? null;
  };

  const off = startWorker(join(dir, 'tidings.db'), { TIDINGS_READING_LIST_PACE: '0' });
  await waitFor('the worker to start', () => Promise.resolve(logged(off, 'worker started')));
  assert.ok(!off.stderr().includes('reading list reader'), off.stderr());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal((await stopWith(off, 'SIGTERM')).code, 0);
  assert.deepEqual([await pageState(), server().requestsFor('/imported').length], [null, 0]);

  const on = startWorker(join(dir, 'tidings.db'));
  await waitFor('the imported page read', async () => (await pageState()) === 'read');
  assert.ok(on.stderr().includes('"reading list reader"'), on.stderr());
  assert.equal((await stopWith(on, 'SIGTERM')).code, 0);
  assert.equal(server().requestsFor('/imported').length, 1);
});
