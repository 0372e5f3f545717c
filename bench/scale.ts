/**
 * Scale-out benchmark and proof: `npm run bench:scale` (issue 14, point 5), on one fresh PostgreSQL
 * database, in two parts (BENCH_SCALE_PARTS, both by default):
 *
 * `throughput` (bench/scale-throughput.ts): GET A and POST A req/s and p99 for 1, 2 and 3 `tidings serve`
 * instances, alternating rounds with as many ceiling processes, and the ratio to the ceiling (as bench:api).
 *
 * `proofs`: three built `tidings serve` processes and one `tidings worker`, then, at the issue's full sizes:
 *
 * - 20,000 saves round-robin over the instances (URLs repeated through another instance, every account
 *   saved to through all three), the third instance SIGKILLed half-way: POST throughput and p99 across
 *   the instances, and every save answered 2xx in its queue exactly once;
 * - a key revoked through the first instance's web app: how long until each other instance refuses it;
 * - the 200 accounts' digests built while a worker is SIGKILLed mid-build, emailed to an SMTP sink: one
 *   digest and one email each, every queued item in exactly one digest, and how long it all took.
 *
 * The same code as src/cli/scaleOut.test.ts (src/test/scale*.ts), which runs it with smaller counts.
 * Exits 1 when a save is lost or doubled, a revocation takes over a second, or a digest or email is
 * missing or doubled. On 2 cores the instances, the worker, PostgreSQL and this client share the CPU.
 *
 * Environment: BENCH_SCALE_PARTS (throughput,proofs); for the throughput: BENCH_ROUNDS (3),
 * BENCH_DURATION seconds per run (5), BENCH_SCALE_CONNECTIONS (12, a multiple of 1, 2 and 3 so that each
 * instance gets as many); for the proofs: BENCH_SCALE_POSTS (20000), BENCH_SCALE_ACCOUNTS (200),
 * BENCH_CONNECTIONS (32); BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestsWithKill } from '../src/test/scaleDigests.js';
import {
  ackedCount,
  checkQueues,
  createAccounts,
  flood,
  percentile,
  startCluster,
} from '../src/test/scaleOut.js';
import { revokeAcrossInstances } from '../src/test/scaleRevoke.js';
import { exitWithin } from '../src/test/process.js';
import { envInt } from './env.js';
import { type Cleanup, freshDatabase, runBench } from './processes.js';
import { measureThroughput, printThroughput } from './scale-throughput.js';
import { fmt, load, log } from './report.js';

const POSTS = envInt('BENCH_SCALE_POSTS', 20_000);
const ACCOUNTS = envInt('BENCH_SCALE_ACCOUNTS', 200);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 32);
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KILLED = 2;
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? 'throughput,proofs').split(','));
const THROUGHPUT = {
  rounds: envInt('BENCH_ROUNDS', 3),
  duration: envInt('BENCH_DURATION', 5),
  warmup: 2,
  connections: envInt('BENCH_SCALE_CONNECTIONS', 12),
};

/** Prints a check and whether it held. */
function verdict(failures: string[], ok: boolean, line: string): void {
  log(`${ok ? '  ok  ' : '  FAIL'} ${line}`);
  if (!ok) failures.push(line);
}

async function main(cleanup: Cleanup): Promise<number> {
  for (const part of PARTS) {
    if (part !== 'throughput' && part !== 'proofs')
      throw new Error(`BENCH_SCALE_PARTS: unknown part ${part}`);
  }
  log(`Tidings scale-out benchmark, ${new Date().toISOString()}`);
  log(
    `machine: ${availableParallelism()} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ` +
      `load average ${load()}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-bench-scale-'));
  cleanup.defer(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));
  const databaseUrl = await freshDatabase('postgres', cleanup, tmp, PG_ADMIN);
  if (databaseUrl === null) return 1; // the reason is printed: there is nothing to scale out without it
  if (PARTS.has('throughput')) {
    const t = THROUGHPUT;
    log(
      `\nThroughput: 1, 2 and 3 instances against as many ceilings, ${t.rounds} rounds × ${t.duration} s ` +
        `per target, ${t.connections} connections spread over the instances, pipelining 1`,
    );
    printThroughput(await measureThroughput(cleanup, databaseUrl, tmp, t));
  }
  const failures = PARTS.has('proofs') ? await proofs(cleanup, databaseUrl) : [];
  log(`\nload average at the end: ${load()} (other work on the machine skews the numbers)`);
  log(failures.length === 0 ? '\nEvery check held.' : `\nFAIL: ${failures.length} checks failed.`);
  return failures.length === 0 ? 0 : 1;
}

/** The three proofs; returns the checks that failed. */
async function proofs(cleanup: Cleanup, databaseUrl: string): Promise<string[]> {
  const cluster = await startCluster(databaseUrl);
  cleanup.defer('stop the instances, the worker and the SMTP sink', () => cluster.stop());
  const accounts = await createAccounts(cluster.store, ACCOUNTS, 'bench');
  const failures: string[] = [];

  log(`\n1. ${fmt(POSTS)} saves, ${fmt(ACCOUNTS)} accounts, ${CONNECTIONS} connections over 3 instances`);
  const victim = cluster.servers[KILLED];
  if (victim === undefined) throw new Error('no instance to kill');
  const result = await flood(cluster, accounts, { posts: POSTS, clients: CONNECTIONS, killIndex: KILLED });
  const killed = await exitWithin(victim, 5000);
  const answered = result.latencies.length;
  log(
    `  ${fmt(answered)} answered 2xx in ${fmt(result.elapsedMs / 1000, 1)} s: ` +
      `${fmt(answered / (result.elapsedMs / 1000))} req/s across the instances, ` +
      `p50 ${fmt(percentile(result.latencies, 50), 1)} ms, p99 ${fmt(percentile(result.latencies, 99), 1)} ms`,
  );
  for (const [i, outcomes] of result.outcomes.entries()) {
    log(
      `  instance ${i + 1}${i === KILLED ? ` (${killed.signal ?? 'not killed'} half-way)` : ''}: ${JSON.stringify(Object.fromEntries(outcomes))}`,
    );
  }
  await cluster.restart(KILLED);
  const queues = await checkQueues(cluster.servers, accounts, result);
  log(
    `  ${fmt(ackedCount(result))} distinct URLs acknowledged (${fmt(result.repeats)} posts repeated a URL)`,
  );
  verdict(
    failures,
    result.survivorFailures === 0,
    `answers other than 2xx from the survivors: ${result.survivorFailures}`,
  );
  verdict(failures, queues.lost.length === 0, `lost (2xx, not queued): ${queues.lost.length}`);
  verdict(
    failures,
    queues.duplicates.length === 0,
    `queued twice for an account: ${queues.duplicates.length}`,
  );
  verdict(failures, queues.strangers.length === 0, `queued but never sent: ${queues.strangers.length}`);

  log('\n2. A key revoked through instance 1’s web app');
  const revoke = await revokeAcrossInstances(cluster.store, cluster.servers);
  for (const [i, ms] of revoke.propagationMs.entries()) {
    verdict(
      failures,
      ms <= 1000,
      `instance ${i + 2} refuses it ${fmt(ms, 1)} ms after the revocation’s answer`,
    );
  }
  verdict(failures, revoke.revokerStatus === 401, `instance 1 answers it ${revoke.revokerStatus}`);

  log(`\n3. ${fmt(ACCOUNTS)} accounts’ digests, a worker SIGKILLed mid-build`);
  const digests = await digestsWithKill(cluster, accounts, queues.queued, 600_000);
  const seconds = (ms: number): string => `${fmt(ms / 1000, 1)} s`;
  log(
    `  from the first worker's start: killed at ${seconds(digests.killMs)} (${digests.builtAtKill} built, ` +
      `${digests.leasesHeld} accounts leased), second worker up at ${seconds(digests.restartMs)}, ` +
      `every digest built at ${seconds(digests.buildMs)}, every email sent at ${seconds(digests.sendMs)}`,
  );
  verdict(
    failures,
    digests.builtAtKill < ACCOUNTS,
    `the kill came mid-build (${digests.builtAtKill} of ${ACCOUNTS})`,
  );
  verdict(
    failures,
    digests.wrongDigestCount.length === 0,
    `accounts without exactly one digest: ${digests.wrongDigestCount.length}`,
  );
  verdict(
    failures,
    digests.wrongItems.length === 0,
    `digests that are not their queue: ${digests.wrongItems.length}`,
  );
  verdict(failures, digests.leftInQueues === 0, `items left in the queues: ${digests.leftInQueues}`);
  verdict(failures, digests.sent === ACCOUNTS, `emails recorded as sent: ${digests.sent}`);
  verdict(
    failures,
    digests.messages === ACCOUNTS && digests.messageIds === ACCOUNTS && digests.wrongMessages.length === 0,
    `messages at the SMTP sink: ${digests.messages} (${digests.messageIds} Message-IDs; ` +
      `${digests.wrongMessages.length} addresses without exactly one)`,
  );
  return failures;
}

await runBench('bench:scale', main);
