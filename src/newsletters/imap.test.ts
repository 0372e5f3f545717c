import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOOP_HEADER, LOOP_VALUE } from '../lib/mailLoop.js';
import type { Store } from '../store/db.js';
import { leaseHolder } from '../store/workerLeases.js';
import { TestClock } from '../test/digestPipeline.js';
import { Dovecot } from '../test/dovecot.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { startTcpProxy } from '../test/process.js';
import { TEST_BASE_URL, TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { buttondownLike, mailchimpLike, substackLike } from '../test/newsletterFixtures.js';
import {
  type ImapWatcher,
  type ImapWatcherDeps,
  LEASE_NAME,
  SKIP_KEYWORD,
  startImapWatcher,
} from './imap.js';

/**
 * The IMAP way in against a real Dovecot started here (src/test/dovecot.ts), on both engines: what is
 * taken, what is marked and when, IDLE and polling, the daily limit, a server that goes away, and one
 * watcher per instance.
 */

/** Waits for `done` (a safety deadline only: the assertions are on counts and flags, never on time). */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`still waiting for ${what}`);
}

async function subjects(store: Store, accountId: number): Promise<string[]> {
  const rows = await store.db
    .selectFrom('newsletter_messages')
    .select(['subject', 'via'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  assert.ok(rows.every((r) => r.via === 'imap'));
  return rows.map((r) => r.subject);
}

await describeEachEngine('newsletters over IMAP', (ctx) => {
  const clock = new TestClock('2026-11-05T12:00:00Z');
  const watcherDeps = (dovecot: Dovecot, more: Partial<ImapWatcherDeps> = {}): ImapWatcherDeps => ({
    store: ctx.store(),
    log: silentLogger,
    baseUrl: TEST_BASE_URL,
    inbound: TEST_INBOUND,
    queueLimit: 10_000,
    now: clock.now,
    imap: dovecot.config(),
    holder: `test-${Math.random().toString(36).slice(2)}`,
    // Ten minutes: within a test, only IDLE (or a test's nextPass) makes a pass after the first.
    pollMs: 600_000,
    firstBackoffMs: 50,
    maxBackoffMs: 400,
    ...more,
  });

  test('each message to its accounts (To, Cc, Delivered-To), marked \\Seen once stored; the rest skipped, unread; IDLE brings the next', async () => {
    const store = ctx.store();
    const dovecot = await Dovecot.start();
    let watcher: ImapWatcher | undefined;
    try {
      const a = await newAccount(store);
      const b = await newAccount(store);
      const toA = await addressOfAccount(store, a.id);
      const toB = await addressOfAccount(store, b.id);
      await dovecot.append(
        substackLike({ to: toA }),
        mailchimpLike({ to: 'friends@list.example', cc: toB }),
        buttondownLike({ to: 'catchall@example.test', extraHeaders: [`Delivered-To: ${toA}`] }),
        substackLike({ to: 'someone@else.example', messageId: 'nobody@x.example' }),
        substackLike({
          to: toA,
          messageId: 'ours@x.example',
          extraHeaders: [`${LOOP_HEADER}: ${LOOP_VALUE}`],
        }),
      );
      watcher = startImapWatcher(watcherDeps(dovecot));
      const w = watcher;
      await until(() => w.counts.stored + w.counts.skipped === 5, 'the five messages');
      assert.deepEqual(w.counts, { stored: 3, skipped: 2, later: 0, connections: 1 });
      assert.equal((await subjects(store, a.id)).length, 2);
      assert.equal((await subjects(store, b.id)).length, 1);
      assert.deepEqual(
        (await dovecot.flags()).map((m) => m.flags),
        [['\\Seen'], ['\\Seen'], ['\\Seen'], [SKIP_KEYWORD], [SKIP_KEYWORD]],
      );

      // While it watches: the server's IDLE news wakes it (its poll is ten minutes away).
      await dovecot.append(
        substackLike({ to: toB, subject: 'Delivered while idle', messageId: 'idle@x.example' }),
      );
      await until(() => w.counts.stored === 4, 'the message appended while idle');
      assert.deepEqual((await subjects(store, b.id)).at(-1), 'Delivered while idle');
      // The skipped ones are not tried again, pass after pass.
      await w.nextPass();
      await w.nextPass();
      assert.equal(w.counts.skipped, 2);
    } finally {
      await watcher?.stop();
      await dovecot.close();
    }
  });

  test('over the daily limit: left unread (no flag), taken once the day moves on; the same message twice is one entry', async () => {
    const store = ctx.store();
    const dovecot = await Dovecot.start();
    let watcher: ImapWatcher | undefined;
    try {
      const a = await newAccount(store);
      const to = await addressOfAccount(store, a.id);
      const letters = [1, 2, 3].map((n) =>
        substackLike({ to, subject: `Letter ${n}`, messageId: `limit-${n}@x.example` }),
      );
      await dovecot.append(...letters, letters[0] ?? Buffer.alloc(0));
      watcher = startImapWatcher({
        ...watcherDeps(dovecot),
        inbound: { ...TEST_INBOUND, dailyLimit: 2 },
        retryLaterMs: 0,
      });
      const w = watcher;
      await until(() => w.counts.stored + w.counts.later === 4, 'the four messages');
      assert.deepEqual({ stored: w.counts.stored, later: w.counts.later }, { stored: 3, later: 1 });
      assert.deepEqual(await subjects(store, a.id), ['Letter 1', 'Letter 2']);
      assert.deepEqual(
        (await dovecot.flags()).map((m) => m.flags),
        [['\\Seen'], ['\\Seen'], [], ['\\Seen']],
      );
      clock.advance(24 * 60 * 60 * 1000 + 1000);
      await w.nextPass();
      assert.deepEqual(await subjects(store, a.id), ['Letter 1', 'Letter 2', 'Letter 3']);
      assert.ok((await dovecot.flags()).every((m) => m.flags.includes('\\Seen')));
    } finally {
      await watcher?.stop();
      await dovecot.close();
    }
  });

  test('a server that goes away: the watcher connects again (backoff) and goes on', async () => {
    const store = ctx.store();
    const dovecot = await Dovecot.start();
    // The server taken away and brought back by a TCP proxy in front of it: every connection cut, and
    // each new one refused until it is back.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: dovecot.port });
    let watcher: ImapWatcher | undefined;
    try {
      const a = await newAccount(store);
      const to = await addressOfAccount(store, a.id);
      await dovecot.append(substackLike({ to, subject: 'Before', messageId: 'before@x.example' }));
      watcher = startImapWatcher(watcherDeps(dovecot, { imap: { ...dovecot.config(), port: proxy.port } }));
      const w = watcher;
      await until(() => w.counts.stored === 1, 'the first message');
      await proxy.cut();
      await dovecot.append(substackLike({ to, subject: 'While away', messageId: 'away@x.example' }));
      await sleep(500); // a few refused attempts, backing off
      assert.equal(w.counts.stored, 1);
      await proxy.restore();
      await until(() => w.counts.stored === 2, 'the message sent while the server was away');
      assert.equal(w.counts.connections, 2);
      assert.deepEqual(await subjects(store, a.id), ['Before', 'While away']);
    } finally {
      await watcher?.stop();
      await proxy.close();
      await dovecot.close();
    }
  });

  test('a server without IDLE is polled', async () => {
    const store = ctx.store();
    const dovecot = await Dovecot.start({ idle: false });
    let watcher: ImapWatcher | undefined;
    try {
      const a = await newAccount(store);
      const to = await addressOfAccount(store, a.id);
      watcher = startImapWatcher(watcherDeps(dovecot, { pollMs: 200 }));
      const w = watcher;
      await until(() => w.counts.connections === 1, 'the connection');
      await dovecot.append(substackLike({ to, subject: 'Polled', messageId: 'polled@x.example' }));
      await until(() => w.counts.stored === 1, 'the polled message');
      assert.deepEqual(await subjects(store, a.id), ['Polled']);
    } finally {
      await watcher?.stop();
      await dovecot.close();
    }
  });

  test('one watcher per instance: a second waits for the lease, and takes over when the first stops', async () => {
    const store = ctx.store();
    const dovecot = await Dovecot.start();
    const watchers: ImapWatcher[] = [];
    try {
      const a = await newAccount(store);
      const to = await addressOfAccount(store, a.id);
      const first = startImapWatcher(watcherDeps(dovecot, { holder: 'first', leaseMs: 600 }));
      watchers.push(first);
      await until(() => first.counts.connections === 1, 'the first connection');
      const second = startImapWatcher(watcherDeps(dovecot, { holder: 'second', leaseMs: 600 }));
      watchers.push(second);
      await dovecot.append(substackLike({ to, subject: 'One', messageId: 'one@x.example' }));
      await until(() => first.counts.stored === 1, 'the first watcher to take it');
      // Several of the second's attempts at the lease later (one every 200 ms), the first still holds it.
      await sleep(1000);
      assert.equal(second.counts.connections, 0);
      assert.equal(await leaseHolder(store.db, LEASE_NAME), 'first');
      await first.stop();
      await until(() => second.counts.connections === 1, 'the second watcher to take over');
      await dovecot.append(substackLike({ to, subject: 'Two', messageId: 'two@x.example' }));
      await until(() => second.counts.stored === 1, 'the second watcher to take the next');
      assert.deepEqual(await subjects(store, a.id), ['One', 'Two']);
    } finally {
      for (const w of watchers) await w.stop();
      await dovecot.close();
    }
  });
});
