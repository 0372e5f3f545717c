/**
 * The IMAP way in over imaps:// (implicit TLS), as an operator runs it: a real `tidings worker` with
 * TIDINGS_INBOUND_IMAP_URL=imaps://…, against a real Dovecot serving TLS on a loopback port with a
 * self-signed certificate made here (test/dovecot.ts), on both engines. The watcher checks the server's
 * certificate against the certificates Node trusts, which NODE_EXTRA_CA_CERTS extends with a private CA's
 * (docs/newsletters.md, "IMAP"): without it the connection is refused and the mailbox left as it was; with
 * it the message is stored, then marked \Seen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { Dovecot } from '../test/dovecot.js';
import { substackLike } from '../test/newsletterFixtures.js';
import { type CliProcess, assertBuilt, createAccountViaCli, runCli, startWorker } from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const DOMAIN = 'inbound.example';

/** Waits for `done` (a safety deadline only: the assertions are on what happened, never on time). */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`still waiting for ${what}`);
}

/** The worker's log lines with this message. */
function logged(worker: CliProcess, msg: string): { err?: { message?: string } }[] {
  return worker
    .stderr()
    .split('\n')
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: unknown; err?: { message?: string } };
        return entry.msg === msg ? [entry] : [];
      } catch {
        return [];
      }
    });
}

/** SIGTERM, as a service manager stops it: the watcher gives its lease up for the next one at once. */
async function stopCleanly(worker: CliProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  const exit = await worker.exited;
  assert.equal(exit.code, 0, worker.stderr());
}

for (const engine of ENGINES) {
  describe(
    `newsletters over imaps:// [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase | undefined;
      let dovecot: Dovecot | undefined;
      before(async () => {
        db = await createTestDatabase(engine);
        dovecot = await Dovecot.start({ tls: true });
      });
      after(async () => {
        await dovecot?.close();
        await db?.drop();
      });

      test('the server certificate is checked: refused until NODE_EXTRA_CA_CERTS names its CA, then taken in', async () => {
        if (db === undefined || dovecot === undefined || dovecot.caFile === null) throw new Error('no setup');
        const account = await createAccountViaCli(db.url, 'imaps');
        const env = { DATABASE_URL: db.url, TIDINGS_INBOUND_DOMAIN: DOMAIN };
        const made = await runCli(['newsletters', 'address', '--account', String(account.id)], env);
        assert.equal(made.code, 0, made.stderr);
        const address = made.stdout.trim();
        const senders = async (): Promise<{ address: string; messages: number }[]> => {
          const r = await runCli(['newsletters', 'list', '--account', String(account.id), '--json'], env);
          assert.equal(r.code, 0, r.stderr);
          return JSON.parse(r.stdout) as { address: string; messages: number }[];
        };
        await dovecot.append(substackLike({ to: address, messageId: `over-tls-${engine}@letter.example` }));
        const url = dovecot.url();
        assert.match(url, /^imaps:\/\//);
        const workerEnv = {
          TIDINGS_INBOUND_DOMAIN: DOMAIN,
          TIDINGS_INBOUND_IMAP_URL: url,
        };

        // Without the CA: the handshake fails on the certificate, and nothing is read or marked.
        const untrusted = await startWorker({ databaseUrl: db.url, env: workerEnv });
        try {
          await until(
            () => logged(untrusted, 'imap watcher: connection failed').length > 0,
            'a refused connection',
          );
          const [failure] = logged(untrusted, 'imap watcher: connection failed');
          assert.match(failure?.err?.message ?? '', /self[- ]signed certificate/i);
          assert.equal(logged(untrusted, 'imap watcher: watching').length, 0);
        } finally {
          await stopCleanly(untrusted);
        }
        assert.deepEqual(await senders(), []);
        assert.deepEqual(
          (await dovecot.flags()).map((m) => m.flags.filter((f) => f !== '\\Recent')),
          [[]],
          'left unread, without keyword',
        );

        // With it: TLS to the server, the message stored, then marked \Seen.
        const trusted = await startWorker({
          databaseUrl: db.url,
          env: { ...workerEnv, NODE_EXTRA_CA_CERTS: dovecot.caFile },
        });
        try {
          await until(async () => (await dovecot?.flags())?.[0]?.flags.includes('\\Seen') === true, '\\Seen');
          assert.equal(logged(trusted, 'imap watcher: connection failed').length, 0, trusted.stderr());
          assert.equal(logged(trusted, 'imap watcher: watching').length, 1);
        } finally {
          await stopCleanly(trusted);
        }
        assert.deepEqual(
          (await senders()).map((s) => [s.address, s.messages]),
          [['slowletter@substack.com', 1]],
        );
      });
    },
  );
}
