/**
 * Three `tidings serve` processes and one `tidings worker` on one PostgreSQL database (issue 14, point 5),
 * with smaller counts than `npm run bench:scale` to keep CI quick (80 to 145 s on a shared 2-core machine
 * at loads of 17 to 26, where the CPU is the limit; much less on a quiet one): saves round-robin over the
 * instances with one SIGKILLed half-way, a key revoked on one instance and refused by the others within a
 * second, the day's digests built while a worker is SIGKILLed mid-build.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { assertBuilt, exitWithin } from '../test/process.js';
import { digestsWithKill } from '../test/scaleDigests.js';
import {
  type Cluster,
  type FloodResult,
  type QueueCheck,
  type ScaleAccount,
  ackedCount,
  checkQueues,
  createAccounts,
  flood,
  startCluster,
} from '../test/scaleOut.js';
import { revokeAcrossInstances } from '../test/scaleRevoke.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

/** 60 saves per account, 16 in flight: every account is saved to through every instance at once. */
const POSTS = 3000;
const ACCOUNTS = 50;
const CLIENTS = 16;
const KILLED = 2;

// PostgreSQL only: SQLite serves one instance per database file, so several instances need PostgreSQL.
describe('three instances and a worker on one database [postgres]', { skip: pgSkip }, () => {
  let db: TestDatabase | undefined;
  let cluster: Cluster | undefined;
  let accounts: ScaleAccount[] = [];
  let flooded: FloodResult | undefined;
  let queues: QueueCheck | undefined;
  const live = (): Cluster => {
    if (cluster === undefined) throw new Error('no cluster');
    return cluster;
  };

  before(async () => {
    db = await createTestDatabase('postgres');
    cluster = await startCluster(db.url);
    accounts = await createAccounts(cluster.store, ACCOUNTS, 'scale');
  });
  after(async () => {
    await cluster?.stop();
    await db?.drop();
  });

  test(`${POSTS} saves round-robin, instance ${KILLED + 1} SIGKILLed half-way`, async (t) => {
    const c = live();
    const victim = c.servers[KILLED];
    if (victim === undefined) throw new Error('no instance to kill');
    flooded = await flood(c, accounts, { posts: POSTS, clients: CLIENTS, killIndex: KILLED });
    assert.equal((await exitWithin(victim, 5000)).signal, 'SIGKILL');
    // The survivors answered everything 2xx; the killed one some, then nothing.
    assert.equal(flooded.survivorFailures, 0, JSON.stringify(flooded.outcomes.map((o) => [...o])));
    assert.ok(flooded.repeats > 0, 'some URLs were sent twice, through different instances');
    const killedOk = [...(flooded.outcomes[KILLED] ?? [])].filter(([s]) => s.startsWith('2'));
    assert.ok(killedOk.length > 0, 'the killed instance answered before it died');

    const restarted = await c.restart(KILLED);
    queues = await checkQueues(c.servers, accounts, flooded);
    assert.deepEqual(queues.lost, [], 'answered 2xx but not in the queue');
    assert.deepEqual(queues.duplicates, [], 'queued twice for one account');
    assert.deepEqual(queues.strangers, [], 'queued but never sent');
    assert.ok(restarted.pid !== victim.pid);
    t.diagnostic(
      `${ackedCount(flooded)} URLs acknowledged of ${POSTS} posts (${flooded.repeats} repeats), ` +
        `all queued once; outcomes per instance ${JSON.stringify(flooded.outcomes.map((o) => Object.fromEntries(o)))}`,
    );
  });

  test('a key revoked on one instance is refused by the others within a second', async (t) => {
    const c = live();
    const revoked = await revokeAcrossInstances(c.store, c.servers);
    assert.equal(revoked.propagationMs.length, 2);
    for (const ms of revoked.propagationMs) assert.ok(ms <= 1000, `refused after ${ms} ms`);
    assert.equal(revoked.revokerStatus, 401);
    assert.deepEqual(revoked.otherKeyStatuses, [200, 200, 200], 'the account’s other key still works');
    t.diagnostic(`refused after ${revoked.propagationMs.map((ms) => `${ms.toFixed(1)} ms`).join(', ')}`);
  });

  test(`${ACCOUNTS} accounts' digests with a worker SIGKILLed mid-build`, async (t) => {
    const c = live();
    if (queues === undefined) throw new Error('the saves did not run');
    const run = await digestsWithKill(c, accounts, queues.queued);
    assert.ok(run.builtAtKill < ACCOUNTS, `killed mid-build (${run.builtAtKill} of ${ACCOUNTS} built)`);
    assert.deepEqual(run.wrongDigestCount, [], 'accounts without exactly one digest');
    assert.deepEqual(run.wrongItems, [], 'accounts whose digest is not their queue');
    assert.equal(run.leftInQueues, 0, 'every queued item is in a digest');
    assert.equal(run.sent, ACCOUNTS);
    assert.deepEqual(run.wrongMessages, [], 'addresses that did not get exactly one email');
    assert.equal(run.messages, ACCOUNTS);
    assert.equal(run.messageIds, ACCOUNTS);
    t.diagnostic(
      `killed with ${run.builtAtKill} built and ${run.leasesHeld} leases held; all built in ` +
        `${run.buildMs.toFixed(0)} ms, all sent in ${run.sendMs.toFixed(0)} ms`,
    );
  });
});
