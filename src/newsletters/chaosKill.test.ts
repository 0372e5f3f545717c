/**
 * Reliability suite (`npm run test:chaos`): SIGKILL the real server at arbitrary moments while clients send
 * it newsletters through POST /inbound/email, or over SMTP (TIDINGS_INBOUND_SMTP_PORT, a real client),
 * restart it, and do it again. Every message answered 202 or 250 must be in the account's queue at the end
 * (issue 34: a message is acknowledged only once it is committed). Real processes, real TCP, both engines;
 * the parse threads of the bundle's build.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { substackLike } from '../test/newsletterFixtures.js';
import { sendRaw } from '../test/smtpSend.js';
import {
  type ServerProcess,
  assertBuilt,
  createAccountViaCli,
  exitWithin,
  request,
  runCli,
  startServer,
} from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const CLIENTS = 4;
const KILLS = 3;
const SECRET = 'chaos-inbound-secret-0123456789';
const INBOUND = {
  TIDINGS_WORKER: 'false',
  TIDINGS_INBOUND_DOMAIN: 'inbound.example',
  TIDINGS_INBOUND_SECRET: SECRET,
  TIDINGS_INBOUND_DAILY_LIMIT: '100000',
};

const subjectOf = (n: number): string => `Letter written during the storm ${n}`;

/** The SMTP port a serve started with TIDINGS_INBOUND_SMTP_PORT=0 logged. */
function smtpPortOf(server: ServerProcess): number {
  for (const line of server.stderr().split('\n')) {
    try {
      const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
      if (entry.msg === 'inbound smtp listening' && typeof entry.port === 'number') return entry.port;
    } catch {
      // not a log line
    }
  }
  throw new Error(`no "inbound smtp listening" line: ${server.stderr()}`);
}

function postOne(server: ServerProcess, to: string, n: number): Promise<{ status: number }> {
  return request(`${server.baseUrl}/inbound/email`, {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${SECRET}` },
    body: substackLike({ to, subject: subjectOf(n), messageId: `storm-${n}@chaos.example` }),
  });
}

for (const engine of ENGINES) {
  describe(
    `SIGKILL while newsletters come in [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase | undefined;
      let apiKey = '';
      let address = '';
      let server: ServerProcess | undefined;

      before(async () => {
        db = await createTestDatabase(engine);
        const account = await createAccountViaCli(db.url, 'chaos');
        apiKey = account.apiKey;
        const made = await runCli(['newsletters', 'address', '--account', String(account.id)], {
          DATABASE_URL: db.url,
          ...INBOUND,
        });
        assert.equal(made.code, 0, made.stderr);
        address = made.stdout.trim();
      });
      after(async () => {
        await server?.stop();
        await db?.drop();
      });

      test(`${KILLS} kills mid-flow, ${CLIENTS} clients: every message answered 202 is kept`, async (t) => {
        if (db === undefined) throw new Error('no database');
        const databaseUrl = db.url;
        server = await startServer({ databaseUrl, env: INBOUND });
        const acknowledged = new Set<string>();
        const statuses = new Map<number | string, number>();
        let next = 0;
        let running = true;
        const client = async (): Promise<void> => {
          while (running) {
            const current = server;
            const n = next++;
            if (current === undefined) break;
            const status = await postOne(current, address, n).then(
              (r) => r.status,
              (err: unknown) => (err as NodeJS.ErrnoException).code ?? 'error',
            );
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (status === 202) acknowledged.add(subjectOf(n));
            else if (typeof status !== 'number') await sleep(10); // down: wait for the restart
          }
        };
        const clients = Array.from({ length: CLIENTS }, () => client());
        for (let round = 0; round < KILLS; round++) {
          const start = acknowledged.size;
          while (acknowledged.size - start < 8) await sleep(5);
          await sleep(Math.floor(Math.random() * 150));
          server.child.kill('SIGKILL');
          const exit = await exitWithin(server, 5000);
          assert.equal(exit.signal, 'SIGKILL');
          server = await startServer({ databaseUrl, env: INBOUND });
        }
        running = false;
        await Promise.all(clients);

        const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`);
        assert.equal(res.status, 200, res.body);
        const queued = new Set((JSON.parse(res.body) as { title: string }[]).map((i) => i.title));
        const lost = [...acknowledged].filter((subject) => !queued.has(subject));
        assert.deepEqual(lost, [], `acknowledged but lost after ${KILLS} kills`);
        const fives = [...statuses].filter(([s]) => typeof s === 'number' && s >= 500 && s !== 503);
        assert.deepEqual(fives, [], `no 5xx other than 503: ${JSON.stringify([...statuses])}`);
        t.diagnostic(
          `${acknowledged.size} messages acknowledged, all kept; ${JSON.stringify([...statuses])}`,
        );
      });

      test(`${KILLS} kills mid-flow over SMTP, ${CLIENTS} clients: every message answered 250 is kept`, async (t) => {
        if (db === undefined) throw new Error('no database');
        const databaseUrl = db.url;
        const env = { ...INBOUND, TIDINGS_INBOUND_SMTP_PORT: '0' };
        await server?.stop();
        server = await startServer({ databaseUrl, env });
        let smtpPort = smtpPortOf(server);
        const acknowledged = new Set<string>();
        const answers = new Map<string, number>();
        let next = 100_000;
        let running = true;
        const client = async (): Promise<void> => {
          while (running) {
            const n = next++;
            const subject = subjectOf(n);
            const raw = substackLike({ to: address, subject, messageId: `smtp-storm-${n}@chaos.example` });
            const answer = await sendRaw(smtpPort, raw, [address]);
            const key = answer.ok ? '250' : String(answer.code ?? 'dropped');
            answers.set(key, (answers.get(key) ?? 0) + 1);
            if (answer.ok) acknowledged.add(subject);
            else await sleep(10); // down: wait for the restart
          }
        };
        const clients = Array.from({ length: CLIENTS }, () => client());
        for (let round = 0; round < KILLS; round++) {
          const start = acknowledged.size;
          while (acknowledged.size - start < 8) await sleep(5);
          await sleep(Math.floor(Math.random() * 150));
          server.child.kill('SIGKILL');
          const exit = await exitWithin(server, 5000);
          assert.equal(exit.signal, 'SIGKILL');
          server = await startServer({ databaseUrl, env });
          smtpPort = smtpPortOf(server);
        }
        running = false;
        await Promise.all(clients);

        const res = await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`);
        assert.equal(res.status, 200, res.body);
        const queued = new Set((JSON.parse(res.body) as { title: string }[]).map((i) => i.title));
        const lost = [...acknowledged].filter((subject) => !queued.has(subject));
        assert.deepEqual(lost, [], `acknowledged but lost after ${KILLS} kills`);
        const permanent = [...answers].filter(([code]) => code.startsWith('5'));
        assert.deepEqual(permanent, [], `no permanent refusal: ${JSON.stringify([...answers])}`);
        t.diagnostic(`${acknowledged.size} messages answered 250, all kept; ${JSON.stringify([...answers])}`);
      });
    },
  );
}
