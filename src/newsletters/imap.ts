import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import type { InboundImapConfig } from '../config.js';
import type { Worker } from '../lib/workers.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { releaseLease, takeLease } from '../store/workerLeases.js';
import { type IngestOutcome, type NewsletterDeps, ingestMessage } from './ingest.js';

/**
 * The IMAP way in (docs/newsletters.md, "IMAP"): TIDINGS_INBOUND_IMAP_URL names one mailbox (a catch-all
 * or plus-addressed one) that a worker watches: IDLE where the server offers it (a new message wakes the
 * watcher at once), a poll every `pollMs` besides (and imapflow's NOOP poll where there is no IDLE). Each
 * unread message goes to the pipeline, addressed to the accounts among its To, Cc, Delivered-To and
 * X-Original-To, and then:
 *
 * - stored, or taken in before: marked \Seen, only once ingestMessage resolved (every account's
 *   transaction committed); kill -9 before that leaves it unread, and the next watcher takes it in again
 *   as a duplicate at worst (nothing twice: the pipeline's dedupe);
 * - refused for good (for no account, too large, malformed, Tidings' own mail): left unread with the
 *   keyword SKIP_KEYWORD, which later searches leave out (and, where the server keeps no keywords, left
 *   out by this process until it restarts): never tried over and over;
 * - refused for now (the daily limit, a full queue, the database away): left unread, tried again after
 *   RETRY_LATER_MS.
 *
 * One process of an instance watches: the lease `imap-watcher` (store/workerLeases.ts) held by whoever
 * took it first and renewed while it watches; any other worker waits for it to be released or to expire.
 * A connection that fails or drops is made again after a backoff that doubles up to `maxBackoffMs`.
 */

export const SKIP_KEYWORD = '$TidingsSkipped';
export const LEASE_NAME = 'imap-watcher';

export interface ImapWatcherDeps extends NewsletterDeps {
  imap: InboundImapConfig;
  /** This process's name in the lease (lib/workers.ts workerId). */
  holder: string;
  /** A pass at least this often, IDLE or not (default 60 s). */
  pollMs?: number;
  /** Reconnection's first and longest wait (default 1 s and 60 s). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** The lease's lifetime (default 60 s); renewed every third of it. */
  leaseMs?: number;
  /** A message refused for now is tried again after this long (default 15 minutes). */
  retryLaterMs?: number;
}

const PERMANENT: ReadonlySet<IngestOutcome> = new Set([
  'no-such-recipient',
  'too-large',
  'malformed',
  'our-own-mail',
]);

/** Messages fetched and taken in one pass at most; the next pass goes on. */
const PASS_MESSAGES = 200;

/** What a watcher did so far (tests and the bench read it). */
export interface ImapCounts {
  stored: number;
  skipped: number;
  later: number;
  connections: number;
}

export interface ImapWatcher extends Worker {
  counts: ImapCounts;
  /** Resolves at the end of the next complete pass (tests). */
  nextPass(): Promise<void>;
}

export function startImapWatcher(deps: ImapWatcherDeps): ImapWatcher {
  const pollMs = deps.pollMs ?? 60_000;
  const firstBackoff = deps.firstBackoffMs ?? 1000;
  const maxBackoff = deps.maxBackoffMs ?? 60_000;
  const leaseMs = deps.leaseMs ?? 60_000;
  const retryLaterMs = deps.retryLaterMs ?? 15 * 60_000;
  const now = deps.now ?? (() => new Date());
  const log = deps.log;
  const counts: ImapCounts = { stored: 0, skipped: 0, later: 0, connections: 0 };
  const stopping = new AbortController();
  const stopped = (): boolean => stopping.signal.aborted;
  /** Ends the current wait early: a new message, a lost connection or lease, stop(). */
  let wake: AbortController = new AbortController();
  const nudge = (): void => wake.abort();
  stopping.signal.addEventListener('abort', nudge);
  let passWaiters: (() => void)[] = [];
  /** A pass is due now: a new message, a new connection, a test asking. */
  let passRequested = true;
  /** Messages skipped (when the server keeps no keywords) or refused for now: UIDVALIDITY:UID → retry at. */
  const held = new Map<string, number>();
  const lease = { held: false };
  /** Read through a call: watch() may give the lease up while the loop awaits it. */
  const holds = (): boolean => lease.held;

  const renew = async (): Promise<boolean> => {
    const at = now();
    return takeLease(deps.store.db, LEASE_NAME, deps.holder, {
      now: at,
      expiresAt: new Date(at.getTime() + leaseMs),
    });
  };

  const waitFor = async (ms: number): Promise<void> => {
    if (stopped()) return;
    wake = new AbortController();
    await sleep(ms, undefined, { signal: wake.signal }).catch(() => undefined);
  };

  /** Waits until this process holds the lease (false: stopped first). */
  const acquire = async (): Promise<boolean> => {
    while (!stopped()) {
      const taken = await renew().catch((err: unknown) => {
        log.warn({ err }, 'imap watcher: cannot take its lease');
        return false;
      });
      if (taken) return true;
      await waitFor(leaseMs / 3);
    }
    return false;
  };

  const watch = async (client: ImapFlow): Promise<void> => {
    let nextRenew = Date.now() + leaseMs / 3;
    let nextPass = 0;
    const connection = { closed: false };
    passRequested = true;
    client.on('exists', () => {
      passRequested = true;
      nudge();
    });
    client.on('close', () => {
      connection.closed = true;
      nudge();
    });
    while (!stopped() && !connection.closed) {
      if (Date.now() >= nextRenew) {
        if (!(await renew())) {
          log.warn('imap watcher: lost its lease; another process watches now');
          lease.held = false;
          return;
        }
        nextRenew = Date.now() + leaseMs / 3;
      }
      if (passRequested || Date.now() >= nextPass) {
        passRequested = false;
        const waiters = passWaiters;
        passWaiters = [];
        nextPass = Date.now() + pollMs;
        const more = await pass(client);
        for (const w of waiters) w();
        if (more) passRequested = true;
      }
      if (!passRequested) await waitFor(Math.max(0, Math.min(nextRenew, nextPass) - Date.now()));
    }
  };

  /** One pass over the unread messages; true when there are more than it took. */
  const pass = async (client: ImapFlow): Promise<boolean> => {
    const mailbox = client.mailbox;
    if (mailbox === false) throw new Error('no mailbox open');
    const validity = String(mailbox.uidValidity);
    const uids = (await client.search({ seen: false, unKeyword: SKIP_KEYWORD }, { uid: true })) || [];
    const due = uids.filter((uid) => (held.get(`${validity}:${uid}`) ?? 0) <= Date.now());
    for (const uid of due.slice(0, PASS_MESSAGES)) {
      if (stopped()) return false;
      await one(client, validity, uid);
    }
    return due.length > PASS_MESSAGES;
  };

  const one = async (client: ImapFlow, validity: string, uid: number): Promise<void> => {
    const range = String(uid);
    const key = `${validity}:${uid}`;
    const meta = await client.fetchOne(range, { uid: true, size: true }, { uid: true });
    if (meta === false) return;
    let outcome: IngestOutcome;
    if ((meta.size ?? 0) > deps.inbound.maxBytes) {
      outcome = 'too-large';
    } else {
      const message = await client.fetchOne(range, { uid: true, source: true }, { uid: true });
      if (message === false || message.source === undefined) return;
      try {
        outcome = (await ingestMessage(deps, message.source, { recipients: [], via: 'imap' })).outcome;
      } catch (err) {
        if (!isDatabaseUnavailable(err)) log.error({ err, uid }, 'imap watcher: message not stored');
        else log.warn({ err, uid }, 'imap watcher: the database is unavailable; message left unread');
        outcome = 'queue-full'; // for now: left unread, tried again later
      }
    }
    if (outcome === 'stored' || outcome === 'duplicate') {
      // Only now, the message committed: marked read.
      await client.messageFlagsAdd(range, ['\\Seen'], { uid: true });
      held.delete(key);
      counts.stored++;
    } else if (PERMANENT.has(outcome)) {
      held.set(key, Number.POSITIVE_INFINITY);
      await client.messageFlagsAdd(range, [SKIP_KEYWORD], { uid: true }).catch(() => false);
      counts.skipped++;
      log.info({ uid, outcome }, 'imap watcher: message left unread, skipped');
    } else {
      held.set(key, Date.now() + retryLaterMs);
      counts.later++;
      log.info({ uid, outcome }, 'imap watcher: message left unread, tried again later');
    }
  };

  const loop = (async () => {
    let backoff = firstBackoff;
    while (!stopped()) {
      if (!lease.held) {
        if (!(await acquire())) break;
        lease.held = true;
        log.info({ mailbox: deps.imap.mailbox, host: deps.imap.host }, 'imap watcher: holds its lease');
      }
      const client = new ImapFlow({
        host: deps.imap.host,
        port: deps.imap.port,
        secure: deps.imap.secure,
        auth: { user: deps.imap.user, pass: deps.imap.pass },
        logger: false,
        autoIdleDelay: 1000,
        maxIdleTime: pollMs,
        connectionTimeout: 30_000,
        greetingTimeout: 16_000,
      });
      client.on('error', (err: Error) => {
        log.debug({ err }, 'imap watcher: connection error');
      });
      try {
        await client.connect();
        await client.mailboxOpen(deps.imap.mailbox);
        counts.connections++;
        backoff = firstBackoff;
        log.info(
          { mailbox: deps.imap.mailbox, idle: client.capabilities.has('IDLE') },
          'imap watcher: watching',
        );
        await watch(client);
      } catch (err) {
        if (!stopped()) {
          log.warn(
            { err: { message: (err as Error).message }, retryMs: backoff },
            'imap watcher: connection failed',
          );
        }
      } finally {
        client.close();
      }
      if (stopped()) break;
      if (holds()) {
        await waitFor(backoff);
        backoff = Math.min(maxBackoff, backoff * 2);
      }
    }
    if (holds()) await releaseLease(deps.store.db, LEASE_NAME, deps.holder).catch(() => undefined);
  })();

  return {
    name: 'imap watcher',
    counts,
    nextPass: () =>
      new Promise<void>((resolve) => {
        passWaiters.push(resolve);
        passRequested = true;
        nudge();
      }),
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}
