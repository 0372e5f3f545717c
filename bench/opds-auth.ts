/**
 * What signing in costs an OPDS reader (issue 35, point 4): `npm run bench:opds-auth`. An e-reader sends
 * its HTTP Basic credentials with every request (the catalogue, each page, each book), and a password is
 * checked by scrypt (N = 2^15, r = 8: 32 MiB and tens of milliseconds of CPU). Per engine (BENCH_ENGINES,
 * sqlite,postgres), on a fresh database with 30 reading-list entries, behind the real HTTP server on
 * loopback: BENCH_REQUESTS (60) requests of the reading list's first page one after another with Basic,
 * then as many with the private `?token=` link (a SHA-256 lookup), each timed from the request to its last
 * byte; and the process's CPU time for each run (user + system, libuv's threads included: that is where
 * scrypt runs), per request. Printed per run: median, p95, CPU ms a request; then what Basic adds. A
 * warm-up run goes first: its first request is the one that verifies the password by scrypt when the
 * server remembers verified credentials (accounts/verifiedPasswords.ts), every request when it does not.
 */
import { operatorSetPassword } from '../src/accounts/passwords.js';
import { newOpdsLink } from '../src/accounts/opds.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { type Engine, openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { createTestDatabase } from '../src/test/databases.js';
import { testServer } from '../src/test/harness.js';
import { addReadingItems } from '../src/test/readingFixtures.js';
import { envInt } from './env.js';
import { runBench } from './processes.js';
import { fmt, load, log } from './report.js';
import { median } from './rounds.js';

const REQUESTS = envInt('BENCH_REQUESTS', 60);
const PASSWORD = 'an e-reader password';
const ENGINES: Engine[] = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((e) => {
  const engine = e.trim();
  if (engine !== 'sqlite' && engine !== 'postgres')
    throw new Error(`BENCH_ENGINES: unknown engine ${engine}`);
  return engine;
});

interface Run {
  medianMs: number;
  p95Ms: number;
  cpuMs: number;
}

const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1] ?? 0;

async function run(url: string, headers: Record<string, string>): Promise<Run> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  }
  const used = process.cpuUsage(cpu);
  return {
    medianMs: median(times),
    p95Ms: p95(times),
    cpuMs: (used.user + used.system) / 1000 / REQUESTS,
  };
}

async function measure(engine: Engine): Promise<void> {
  const db = await createTestDatabase(engine);
  const store = openStore(db.url);
  const app = testServer(store);
  try {
    await migrateToLatest(store);
    const name = `opds reader ${engine}`;
    const { account } = await createAccountWithKey(store, { name });
    await operatorSetPassword(store, account.id, PASSWORD, new Date());
    await addReadingItems(
      store,
      account.id,
      Array.from({ length: 30 }, (_, i) => ({
        url: `https://site.example/articles/${i}`,
        savedAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
      })),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address !== 'object') throw new Error('no address');
    const base = `http://127.0.0.1:${address.port}`;
    const link = new URL((await newOpdsLink(store, account.id, base)) ?? '');
    const basic = { authorization: `Basic ${Buffer.from(`${name}:${PASSWORD}`).toString('base64')}` };
    await run(`${base}/opds/reading`, basic); // warm-up
    const withBasic = await run(`${base}/opds/reading`, basic);
    const withToken = await run(`${base}/opds/reading${link.search}`, {});
    const line = (what: string, r: Run): string =>
      `  ${what}: ${fmt(REQUESTS)} requests, ${fmt(r.medianMs, 1)} ms median, p95 ${fmt(r.p95Ms, 1)} ms, ${fmt(r.cpuMs, 1)} ms of CPU a request`;
    log(line('HTTP Basic', withBasic));
    log(line('?token=', withToken));
    log(
      `${engine}: Basic adds ${fmt(withBasic.medianMs - withToken.medianMs, 1)} ms median and ${fmt(withBasic.cpuMs - withToken.cpuMs, 1)} ms of CPU a request`,
    );
  } finally {
    await app.close();
    await store.close();
    await db.drop();
  }
}

await runBench('opds-auth', async () => {
  log(`OPDS sign-in per request, ${new Date().toISOString()}, load ${load()}`);
  for (const engine of ENGINES) await measure(engine);
  log(`load at the end: ${load()}`);
  return 0;
});
