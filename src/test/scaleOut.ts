/**
 * Several real `tidings serve` processes and one `tidings worker` on one PostgreSQL database (issue 14,
 * point 5), shared by src/cli/scaleOut.test.ts (small counts, in CI) and `npm run bench:scale` (the full
 * counts): the cluster, and a flood of saves spread round-robin over the instances while one of them is
 * SIGKILLed half-way. scaleRevoke.ts and scaleDigests.ts are the other two proofs.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createAccountWithKey } from '../accounts/service.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { setEmail } from './digestPipeline.js';
import { type CliProcess, type ServerProcess, startServer, startWorker } from './process.js';
import { SmtpTestServer } from './smtpServer.js';

/** Far enough ahead that no digest is built before the digest phase makes the accounts due. */
const NOT_DUE = '2999-01-01T00:00:00.000Z';
/** How long a process may take to start: three at once on a busy 2-core machine can take over 20 s. */
export const START_TIMEOUT_MS = 90_000;
/** Each account's digest takes up to this many items (100 by default): its whole queue, here. */
const DIGEST_MAX_ITEMS = 1000;

export interface ScaleAccount {
  id: number;
  apiKey: string;
  email: string;
}

export interface Cluster {
  databaseUrl: string;
  /** The migrated database, for setting up and for reading what the processes did. */
  store: Store;
  servers: ServerProcess[];
  /** The long-running worker (the digest phase replaces it). */
  worker: CliProcess;
  smtp: SmtpTestServer;
  /** The environment of every `tidings worker` of this cluster (SMTP, From). */
  workerEnv: Record<string, string>;
  /** A fresh `serve` in place of servers[index] (after it was killed). */
  restart(index: number): Promise<ServerProcess>;
  /** Kills every process, closes the SMTP sink and the store. */
  stop(): Promise<void>;
}

/**
 * Migrates the database, then starts `instances` serve processes (no background work in them) and one
 * worker that emails through a real SMTP sink. Migrating first: the processes would otherwise race to.
 */
export async function startCluster(databaseUrl: string, instances = 3): Promise<Cluster> {
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  const smtp = await SmtpTestServer.start();
  const serveEnv = { TIDINGS_WORKER: 'false' };
  const workerEnv = {
    TIDINGS_SMTP_URL: smtp.url(),
    TIDINGS_MAIL_FROM: 'Tidings <digest@tidings.example>',
  };
  const processes: CliProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(processes.map((p) => p.stop()));
    await smtp.close();
    await store.close();
  };
  try {
    const servers = await Promise.all(
      Array.from({ length: instances }, () =>
        startServer({ databaseUrl, env: serveEnv, timeoutMs: START_TIMEOUT_MS }),
      ),
    );
    processes.push(...servers);
    const worker = await startWorker({ databaseUrl, env: workerEnv, timeoutMs: START_TIMEOUT_MS });
    processes.push(worker);
    return {
      databaseUrl,
      store,
      servers,
      worker,
      smtp,
      workerEnv,
      restart: async (index) => {
        const server = await startServer({ databaseUrl, env: serveEnv, timeoutMs: START_TIMEOUT_MS });
        processes.push(server);
        servers[index] = server;
        return server;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `count` accounts with a key and an email address, none due for a digest until the digest phase, each
 * taking up to DIGEST_MAX_ITEMS items into a digest.
 */
export async function createAccounts(store: Store, count: number, tag: string): Promise<ScaleAccount[]> {
  const accounts: ScaleAccount[] = [];
  for (let n = 0; n < count; n += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - n) }, async (_, i) => {
        const { account, apiKey } = await createAccountWithKey(store, { name: `${tag} ${n + i}` });
        const email = `${tag}-${account.id}@tidings.example`;
        await setEmail(store, account.id, email);
        await store.db
          .updateTable('accounts')
          .set({ digest_due_at: NOT_DUE, digest_max_items: DIGEST_MAX_ITEMS })
          .where('id', '=', account.id)
          .execute();
        return { id: account.id, apiKey, email };
      }),
    );
    accounts.push(...batch);
  }
  return accounts;
}

export interface FloodPlan {
  posts: number;
  clients: number;
  /** The instance SIGKILLed once half of the posts have been sent (the others go on). */
  killIndex: number;
}

export interface FloodResult {
  /** Per account id: the URLs answered 2xx, and every URL sent whatever its answer. */
  acked: Map<number, Set<string>>;
  sent: Map<number, Set<string>>;
  /** How many answers of each kind came from each instance ("status" or an error code). */
  outcomes: Map<string, number>[];
  /** Answers other than 2xx from instances that were not killed. */
  survivorFailures: number;
  /** Posts that reuse a URL another instance was sent for the same account. */
  repeats: number;
  /** Latencies of the 2xx answers, in ms, sorted. */
  latencies: number[];
  elapsedMs: number;
}

/**
 * Post number n goes to instance n mod 3 (the next live one once an instance is dead) for account
 * floor(n / 3) mod accounts: each account is saved to through every instance at once. In one round over
 * the accounts in five (a different one for each account), the post to the third instance repeats the
 * URL just sent to the second one for the same account.
 */
export function planned(n: number, accounts: readonly ScaleAccount[], instances: number, run: string) {
  const group = Math.floor(n / instances);
  const account = accounts[group % accounts.length];
  if (account === undefined) throw new Error('no accounts');
  const round = Math.floor(group / accounts.length);
  const repeat = n % instances === instances - 1 && (round + (group % accounts.length)) % 5 === 0;
  const url = `http://127.0.0.1:9/scale/${run}/${account.id}/${repeat ? n - 1 : n}`;
  return { instance: n % instances, account, url, repeat };
}

/** Rejects with the error's code (ECONNRESET, ECONNREFUSED…) when the connection fails. */
function post(agent: http.Agent, server: ServerProcess, n: number, apiKey: string, url: string) {
  const variantA = n % 2 === 0;
  const path = variantA ? `/api/v1/articles?apiKey=${apiKey}` : `/api?api_key=${apiKey}`;
  const body = JSON.stringify({ url, title: `Saved at scale ${n}` });
  return new Promise<number>((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.end(body);
  });
}

/** Sends the planned posts from `clients` concurrent clients (keep-alive connections, one pool each). */
export async function flood(
  cluster: Cluster,
  accounts: readonly ScaleAccount[],
  plan: FloodPlan,
): Promise<FloodResult> {
  const instances = cluster.servers.length;
  const perAccount = instances * Math.ceil(Math.ceil(plan.posts / instances) / accounts.length);
  if (perAccount > DIGEST_MAX_ITEMS) {
    throw new Error(`${perAccount} saves an account would not fit one digest (${DIGEST_MAX_ITEMS})`);
  }
  const servers = [...cluster.servers];
  const agents = servers.map(() => new http.Agent({ keepAlive: true, maxSockets: plan.clients }));
  const run = Date.now().toString(36);
  const result: FloodResult = {
    acked: new Map(accounts.map((a) => [a.id, new Set<string>()])),
    sent: new Map(accounts.map((a) => [a.id, new Set<string>()])),
    outcomes: servers.map(() => new Map<string, number>()),
    survivorFailures: 0,
    repeats: 0,
    latencies: [],
    elapsedMs: 0,
  };
  const dead = new Set<number>();
  let next = 0;
  const client = async (): Promise<void> => {
    for (let n = next++; n < plan.posts; n = next++) {
      if (n === Math.floor(plan.posts / 2)) {
        dead.add(plan.killIndex);
        servers[plan.killIndex]?.child.kill('SIGKILL');
      }
      const p = planned(n, accounts, servers.length, run);
      const live = servers.map((_, i) => i).filter((i) => !dead.has(i));
      const index = dead.has(p.instance) ? (live[n % live.length] ?? 0) : p.instance;
      const server = servers[index];
      const agent = agents[index];
      if (server === undefined || agent === undefined) throw new Error(`no instance ${index}`);
      if (p.repeat) result.repeats++;
      result.sent.get(p.account.id)?.add(p.url);
      const started = performance.now();
      const outcome = await post(agent, server, n, p.account.apiKey, p.url).catch(
        (err: unknown) => (err as NodeJS.ErrnoException).code ?? 'error',
      );
      const counts = result.outcomes[index];
      counts?.set(String(outcome), (counts.get(String(outcome)) ?? 0) + 1);
      if (typeof outcome === 'number' && outcome >= 200 && outcome < 300) {
        result.latencies.push(performance.now() - started);
        result.acked.get(p.account.id)?.add(p.url);
      } else if (index !== plan.killIndex) {
        result.survivorFailures++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: plan.clients }, () => client()));
  result.elapsedMs = performance.now() - started;
  for (const agent of agents) agent.destroy();
  result.latencies.sort((a, b) => a - b);
  return result;
}

export interface QueueCheck {
  /** Per account id, its queue's URLs as a live instance lists them. */
  queued: Map<number, string[]>;
  /** URLs answered 2xx and missing from their queue. */
  lost: string[];
  /** URLs listed more than once in one queue. */
  duplicates: string[];
  /** URLs in a queue that were never sent (there must be none). */
  strangers: string[];
}

/** Reads every account's queue through the API of the live instances (in turn) and compares. */
export async function checkQueues(
  servers: readonly ServerProcess[],
  accounts: readonly ScaleAccount[],
  result: FloodResult,
): Promise<QueueCheck> {
  const check: QueueCheck = { queued: new Map(), lost: [], duplicates: [], strangers: [] };
  for (const [i, account] of accounts.entries()) {
    const server = servers[i % servers.length];
    if (server === undefined) throw new Error('no server');
    const res = await fetch(`${server.baseUrl}/api/v1/articles?apiKey=${account.apiKey}`);
    if (res.status !== 200) throw new Error(`GET on ${server.baseUrl} answered ${res.status}`);
    const urls = ((await res.json()) as { url: string }[]).map((item) => item.url);
    check.queued.set(account.id, urls);
    const seen = new Set<string>();
    for (const url of urls) {
      if (seen.has(url)) check.duplicates.push(url);
      seen.add(url);
      if (result.sent.get(account.id)?.has(url) !== true) check.strangers.push(url);
    }
    for (const url of result.acked.get(account.id) ?? []) if (!seen.has(url)) check.lost.push(url);
  }
  return check;
}

/** The p-th percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** How many URLs were answered 2xx, over all accounts. */
export const ackedCount = (result: FloodResult): number =>
  [...result.acked.values()].reduce((n, urls) => n + urls.size, 0);
