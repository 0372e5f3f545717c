/**
 * The day's digests of many accounts built by `tidings worker` processes, one of them SIGKILLed mid-build
 * (issue 14, point 5): each account gets one digest, each queued item lands in exactly one, each email
 * reaches the SMTP sink once.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type CliProcess, exitWithin, startWorker } from './process.js';
import { type Cluster, type ScaleAccount, START_TIMEOUT_MS } from './scaleOut.js';

export interface DigestRun {
  /** Digests built when the worker was killed, of `accounts`. */
  builtAtKill: number;
  /** Accounts leased by the dead worker, whose leases were made to run out. */
  leasesHeld: number;
  /** Accounts whose number of digests is not 1. */
  wrongDigestCount: number[];
  /** Accounts whose digests' items are not exactly the URLs their queue held. */
  wrongItems: number[];
  /** Items still queued afterwards (every one should be in a digest). */
  leftInQueues: number;
  /** Digests whose email is recorded as sent. */
  sent: number;
  /** Messages the SMTP sink received, and the accounts that did not receive exactly one. */
  messages: number;
  wrongMessages: string[];
  /** Distinct Message-IDs among the messages. */
  messageIds: number;
  /** From the first worker's start to its kill, to the second one's start, to every digest built (ms). */
  killMs: number;
  restartMs: number;
  buildMs: number;
  /** From the first worker's start to every email sent (ms). */
  sendMs: number;
}

async function count(cluster: Cluster, what: 'digests' | 'sent'): Promise<number> {
  const row = await cluster.store.db
    .selectFrom('digests')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .$if(what === 'sent', (qb) => qb.where('delivery', '=', 'sent'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function until(
  what: string,
  ok: () => Promise<boolean>,
  timeoutMs: number,
  pollMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/**
 * Stops the cluster's worker, makes every account due, starts a worker and SIGKILLs it as soon as it has
 * built its first digest, lets its leases run out (as five minutes would), starts another one and waits
 * for every email. `queued` is each account's queue before, as read through the API.
 *
 * So that the kill finds a build under way however fast builds are (a worker builds its claimed accounts
 * in a few transactions at once, which can all commit within one look at the count), another connection
 * holds the row locks of one account's queued items until the worker is dead: the transaction that takes
 * that queue waits, the others commit.
 */
export async function digestsWithKill(
  cluster: Cluster,
  accounts: readonly ScaleAccount[],
  queued: ReadonlyMap<number, readonly string[]>,
  timeoutMs = 120_000,
): Promise<DigestRun> {
  cluster.worker.child.kill('SIGTERM');
  const stopped = await exitWithin(cluster.worker, 15_000);
  if (stopped.code !== 0) throw new Error(`the worker stopped with ${JSON.stringify(stopped)}`);
  const ids = accounts.map((a) => a.id);
  const db = cluster.store.db;
  await db
    .updateTable('accounts')
    .set({ digest_due_at: new Date(Date.now() - 60_000).toISOString() })
    .where('id', 'in', ids)
    .execute();

  const held = ids.find((id) => (queued.get(id)?.length ?? 0) > 0);
  if (held === undefined) throw new Error('no account has a queue to take');
  const holder = new pg.Client({ connectionString: cluster.databaseUrl });
  await holder.connect();
  const started = performance.now();
  const env = { databaseUrl: cluster.databaseUrl, env: cluster.workerEnv, timeoutMs: START_TIMEOUT_MS };
  let builtAtKill: number;
  let killMs: number;
  try {
    await holder.query('begin');
    await holder.query('select id from queue_items where account_id = $1 for update', [held]);
    const doomed = await startWorker(env);
    await until('the first digest', async () => (await count(cluster, 'digests')) >= 1, timeoutMs, 2);
    doomed.child.kill('SIGKILL');
    killMs = performance.now() - started;
    await doomed.exited;
    builtAtKill = await count(cluster, 'digests');
  } finally {
    await holder.query('rollback').catch(() => undefined);
    await holder.end();
  }
  const leased = await db
    .updateTable('accounts')
    .set({ digest_lease_until: new Date(Date.now() - 1000).toISOString() })
    .where('digest_lease_owner', 'is not', null)
    .where('id', 'in', ids)
    .executeTakeFirst();
  await db
    .updateTable('digests')
    .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
    .where('delivery', '=', 'sending')
    .execute();

  let second: CliProcess | undefined;
  try {
    second = await startWorker(env);
    const restartMs = performance.now() - started;
    await until('every digest', async () => (await count(cluster, 'digests')) >= ids.length, timeoutMs);
    const buildMs = performance.now() - started;
    await until('every email', async () => (await count(cluster, 'sent')) >= ids.length, timeoutMs);
    const sendMs = performance.now() - started;
    await sleep(500); // a second digest or email would show up now
    return {
      ...(await tally(cluster, accounts, queued)),
      builtAtKill,
      leasesHeld: Number(leased.numUpdatedRows),
      killMs,
      restartMs,
      buildMs,
      sendMs,
    };
  } finally {
    second?.child.kill('SIGTERM');
    if (second !== undefined) await exitWithin(second, 15_000);
  }
}

async function tally(
  cluster: Cluster,
  accounts: readonly ScaleAccount[],
  queued: ReadonlyMap<number, readonly string[]>,
): Promise<Omit<DigestRun, 'builtAtKill' | 'leasesHeld' | 'killMs' | 'restartMs' | 'buildMs' | 'sendMs'>> {
  const db = cluster.store.db;
  const ids = accounts.map((a) => a.id);
  const digests = await db
    .selectFrom('digests')
    .select(['id', 'account_id', 'delivery'])
    .where('account_id', 'in', ids)
    .execute();
  const items = await db
    .selectFrom('digest_items')
    .innerJoin('digests', 'digests.id', 'digest_items.digest_id')
    .select(['digests.account_id', 'digest_items.url'])
    .where('digests.account_id', 'in', ids)
    .execute();
  const left = await db
    .selectFrom('queue_items')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', 'in', ids)
    .executeTakeFirstOrThrow();

  const digestsOf = new Map<number, number>();
  for (const d of digests) digestsOf.set(d.account_id, (digestsOf.get(d.account_id) ?? 0) + 1);
  const itemsOf = new Map<number, string[]>();
  for (const i of items) itemsOf.set(i.account_id, [...(itemsOf.get(i.account_id) ?? []), i.url]);
  const sameUrls = (a: readonly string[], b: readonly string[]): boolean =>
    a.length === b.length && [...a].sort().every((url, i) => url === [...b].sort()[i]);

  const messagesTo = new Map<string, number>();
  const messageIds = new Set<string>();
  for (const m of cluster.smtp.messages) {
    for (const to of m.to) messagesTo.set(to, (messagesTo.get(to) ?? 0) + 1);
    const id = /^Message-ID:\s*(\S+)/im.exec(m.raw.toString('utf8'))?.[1];
    if (id !== undefined) messageIds.add(id);
  }
  return {
    wrongDigestCount: ids.filter((id) => digestsOf.get(id) !== 1),
    wrongItems: ids.filter((id) => !sameUrls(itemsOf.get(id) ?? [], queued.get(id) ?? [])),
    leftInQueues: Number(left.n),
    sent: digests.filter((d) => d.delivery === 'sent').length,
    messages: cluster.smtp.messages.length,
    wrongMessages: accounts.map((a) => a.email).filter((email) => messagesTo.get(email) !== 1),
    messageIds: messageIds.size,
  };
}
