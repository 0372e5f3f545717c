/**
 * The throughput part of bench:scale: GET A and POST A (the cases of bench:api) against 1, 2 and 3
 * `tidings serve` instances (TIDINGS_WORKER=false) on one PostgreSQL database, alternating with as many
 * ceiling processes (bench/ceiling.ts), autocannon spreading its connections over the instances in turn.
 * N instances are compared with N ceilings so that the ratio compares like with like: N processes sharing
 * the machine's cores, one of them doing Tidings' work and the other the least possible. Instances are
 * added one at a time and all stay up, so the N-instance runs have exactly N of each.
 */
import { join } from 'node:path';
import type { Options } from 'autocannon';
import { type Cleanup, stopChild } from './processes.js';
import { fmt, log } from './report.js';
import { type Alternated, type RoundsPlan, alternate, fmtMs, fmtRps } from './rounds.js';
import {
  type Target,
  createAccount,
  expectSeeded,
  getA,
  postA,
  seedQueue,
  serveEnv,
  startCeiling,
  startServe,
} from './targets.js';

export interface ThroughputRow extends Alternated {
  instances: number;
  name: string;
}

/** Measures GET A and POST A with 1…maxInstances instances and ceilings; prints each run and returns the medians. */
export async function measureThroughput(
  cleanup: Cleanup,
  databaseUrl: string,
  dir: string,
  plan: RoundsPlan,
  maxInstances = 3,
): Promise<ThroughputRow[]> {
  const env = serveEnv(databaseUrl);
  // The CLI migrates the database before any instance starts, so they do not race to.
  const getKey = await createAccount(cleanup, env, 'bench-scale-get');
  const postKey = await createAccount(cleanup, env, 'bench-scale-post');
  const cases: { name: string; options: (bases: string[]) => Options }[] = [
    { name: 'GET A', options: (bases) => getA(bases, getKey) },
    { name: 'POST A', options: (bases) => postA(bases, postKey) },
  ];
  const bodyFile = join(dir, 'get-body.json');
  const servers: Target[] = [];
  const ceilings: Target[] = [];
  let getBody: Buffer | undefined;
  const rows: ThroughputRow[] = [];
  for (let n = 1; n <= maxInstances; n++) {
    const server = await startServe(cleanup, env, dir);
    servers.push(server);
    getBody ??= await seedQueue(server.base, getKey, bodyFile);
    await expectSeeded(server.base, getKey);
    ceilings.push(await startCeiling(cleanup, bodyFile, getBody, getKey));
    log(`\n  ${n} instance${n === 1 ? '' : 's'}: ${servers.map((s) => s.base).join(', ')}`);
    for (const spec of cases) {
      const targets = { ceiling: ceilings, tidings: servers };
      const label = `${n} × ${spec.name.padEnd(7)}`;
      const result = await alternate(label, (who) => spec.options(targets[who].map((t) => t.base)), plan);
      rows.push({ ...result, instances: n, name: spec.name });
    }
  }
  for (const server of servers) await expectSeeded(server.base, getKey);
  await Promise.all([...servers, ...ceilings].map((t) => stopChild(t.child)));
  return rows;
}

/** The table of medians, with each case's Tidings throughput relative to one instance's. */
export function printThroughput(rows: ThroughputRow[]): void {
  log('\n  Medians of the rounds (N instances against N ceilings):\n');
  log(
    '| instances | case | Tidings req/s | Tidings p99 | ceiling req/s | ceiling p99 | ratio | Tidings vs 1 instance |',
  );
  log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const one = rows.find((x) => x.instances === 1 && x.name === r.name);
    const scale = one === undefined ? '—' : `× ${fmt(r.tidings.rps / one.tidings.rps, 2)}`;
    log(
      `| ${r.instances} | ${r.name} | ${fmtRps(r.tidings.rps)} | ${fmtMs(r.tidings.p99)} | ` +
        `${fmtRps(r.ceiling.rps)} | ${fmtMs(r.ceiling.p99)} | ${r.ratio.toFixed(2)} | ${scale} |`,
    );
  }
}
