import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type * as PgModule from 'pg';

/**
 * How an instance on PostgreSQL learns that another one (or a CLI, or a worker) changed what it caches:
 * migration 0020's triggers `pg_notify` on CHANNEL, in the writing transaction, so PostgreSQL delivers the
 * notice when (and only if) that transaction commits. This listens on a connection of its own (not from
 * the pool), and tells its subscribers what to forget:
 *
 * - `q<id>`: the account's queue moved (its queue_version; migration 0024);
 * - `a<id>`: the account was disabled, enabled or deleted;
 * - `k<prefix>`: the API key with this prefix was revoked or deleted;
 *
 * and tells the page readers of links to read (`s<id>`, `r<id>`: onToRead), which invalidate nothing.
 *
 * Whether the cache may be used at all is `trusted()`. PostgreSQL delivers the notices of different
 * transactions in the order they committed, so a notice this connection sends itself (a barrier, on a
 * channel only it listens to) comes back after every notice of every transaction that committed before
 * the barrier was sent. The cache is trusted only while
 *
 * 1. the connection is up and has resynchronised (LISTEN done, then everything cached dropped),
 * 2. a barrier sent less than LEASE_MS ago has come back: every change committed before then is known;
 * 3. that barrier was sent after this instance's own last write had committed (writeTracking.ts), so its
 *    own changes are known too: a GET after a POST's answer on the same instance is never stale. For
 *    keys and accounts alone (`trusted('keys')`, what a save's key check needs), writes known to move
 *    only a queue (a save's usual transaction) do not count: they change no key and no account's state.
 *
 * Otherwise callers make today's round trip. Barriers are sent only while the cache is asked for (at most
 * one in flight, a new one when the last is HEARTBEAT_MS old, or older than an own write that a caller
 * needed known), so an instance that only writes, or sits idle, sends none. A connection lost
 * (or a barrier unanswered for DEAD_MS) is closed and made again, with backoff.
 */
export const CHANNEL = 'tidings_changes';

export type Invalidation =
  { kind: 'queue'; id: number } | { kind: 'account'; id: number } | { kind: 'key'; prefix: string };

/**
 * Links to read (migration 0035's notices, store/toRead.ts): `s<id>` a person saved a link to a queue,
 * `r<id>` links were added to a reading list. They invalidate nothing: they wake the page readers.
 */
export type ToRead = 'saved' | 'imported';

/** What a cache entry depends on: everything (a queue's version), or only keys and accounts' state. */
export type Trust = 'everything' | 'keys';

/** What an own write may have changed: only a queue (a save's usual transaction), or anything. */
export type WriteKind = 'queue' | 'any';

export interface ChangeFeedTimings {
  leaseMs: number;
  heartbeatMs: number;
  deadMs: number;
  backoffMs: { first: number; max: number };
}

/** A revoked key is refused within LEASE_MS (plus a request already past its check) on every instance. */
const TIMINGS: ChangeFeedTimings = {
  leaseMs: 900,
  heartbeatMs: 100,
  deadMs: 5000,
  backoffMs: { first: 100, max: 5000 },
};

/** Invalidations remembered for `changedSince` (a read that overlaps more of them is not cached). */
const RECENT = 1024;

type State = 'idle' | 'connecting' | 'live' | 'unsupported' | 'closed';

export class ChangeFeed {
  private state: State = 'idle';
  private client: PgModule.Client | null = null;
  /** The server process of the listening session. */
  private backend: number | null = null;
  private readonly syncChannel = `tidings_sync_${randomBytes(6).toString('hex')}`;
  private readonly subscribers = new Set<(change: Invalidation | null) => void>();
  private readonly toRead = new Set<(notice: ToRead | null) => void>();
  /** Invalidations so far (the generation) and the latest RECENT of them; `allAt`: the last drop-all. */
  private generation = 0;
  private allAt = 0;
  private readonly recent: Invalidation[] = [];
  /** Orders own writes and barriers: each takes the next number. */
  private seq = 0;
  private lastWriteSeq = 0;
  /** The last own write that may have changed a key or an account's state (not only a queue). */
  private lastKeyWriteSeq = 0;
  /** A caller was refused for an own write since the barrier in flight was sent (see received). */
  private asked = false;
  private inFlight: { seq: number; sentAt: number } | null = null;
  private confirmed = { seq: 0, sentAt: -Infinity };
  private waiters: { after: number; resolve: () => void }[] = [];
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly newClient: () => PgModule.Client,
    timings: Partial<ChangeFeedTimings> = {},
  ) {
    this.timings = { ...TIMINGS, ...timings };
  }

  private readonly timings: ChangeFeedTimings;
  /** Called once if notices turn out not to come from one session (see received). */
  onUnsupported: (() => void) | undefined;

  /** Calls fn with each invalidation, and with null when everything must be dropped. */
  subscribe(fn: (change: Invalidation | null) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /**
   * Calls fn with each notice of links to read, and with null when some may have been missed (whenever
   * the connection is made again); starts listening. Nothing is cached for it: a reader that hears no
   * notice (the connection down, a pooler in transaction mode) still finds the links at its next poll.
   */
  onToRead(fn: (notice: ToRead | null) => void): () => void {
    this.toRead.add(fn);
    if (this.state === 'idle') this.connect();
    return () => this.toRead.delete(fn);
  }

  /**
   * Whether cached entries that depend on `what` may be used now (see above); starts listening on first
   * use. `everything`: keys, accounts and queue versions; `keys`: keys and accounts' state only.
   */
  trusted(what: Trust = 'everything'): boolean {
    if (this.state === 'idle') this.connect();
    if (this.state !== 'live') return false;
    const age = performance.now() - this.confirmed.sentAt;
    const ownWrites = what === 'keys' ? this.lastKeyWriteSeq : this.lastWriteSeq;
    const known = this.confirmed.seq > ownWrites;
    if (!known) this.asked = true;
    const fresh = age < this.timings.leaseMs && known;
    if (!fresh || age >= this.timings.heartbeatMs) this.barrier(); // which may find the connection dead
    return fresh && this.listening;
  }

  /** Whether the cache is live and resynchronised (for /metrics and tests); not a promise of freshness. */
  get listening(): boolean {
    return this.state === 'live';
  }

  /** A mark to take before a read whose result will be cached (see changedSince). */
  mark(): number {
    return this.generation;
  }

  /**
   * Whether an invalidation of this account or key arrived since `mark` (or too many to tell, or a
   * drop-all): then a read started before it may be stale and must not be cached.
   */
  changedSince(mark: number, accountId: number, prefix: string, what: Trust = 'everything'): boolean {
    if (this.allAt > mark || this.generation - mark > this.recent.length) return true;
    for (let i = this.recent.length - (this.generation - mark); i < this.recent.length; i++) {
      const c = this.recent[i];
      if (c === undefined) continue;
      if (
        c.kind === 'key'
          ? c.prefix === prefix
          : c.id === accountId && (c.kind === 'account' || what === 'everything')
      )
        return true;
    }
    return false;
  }

  /**
   * Resolves once every change committed before the call is known here (a barrier sent after it came
   * back), waiting for the connection if it is down.
   */
  whenSynced(): Promise<void> {
    if (this.state === 'unsupported' || this.state === 'closed') return Promise.resolve(); // nothing cached
    return new Promise((resolve) => {
      this.waiters.push({ after: this.seq, resolve });
      if (this.state === 'idle') this.connect();
      else this.barrier();
    });
  }

  /**
   * This instance wrote: what the write may have changed is not trusted until a barrier sent after now
   * has come back (the next trusted() that needs it sends the barrier: none while nobody reads).
   */
  noteLocalWrite(kind: WriteKind = 'any'): void {
    this.lastWriteSeq = ++this.seq;
    if (kind === 'any') this.lastKeyWriteSeq = this.lastWriteSeq;
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    this.state = 'connecting';
    const client = this.newClient();
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => this.received(client, msg.channel, msg.payload ?? '', msg.processId));
    void (async () => {
      try {
        await client.connect();
        // Barriers are tiny transactions: no need to wait for their commit to reach the disk.
        await client.query(`set synchronous_commit = off; listen ${CHANNEL}; listen ${this.syncChannel}`);
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        if (this.client !== client) return;
        this.backend = rows[0]?.pid ?? null;
        // Resynchronise: anything cached before this point may have missed a notice.
        this.dropAll();
        this.state = 'live';
        this.failures = 0;
        this.barrier();
        for (const fn of this.toRead) fn(null);
      } catch {
        this.lost(client);
      }
    })();
  }

  private lost(client: PgModule.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    this.dropAll();
    this.inFlight = null;
    this.confirmed = { seq: 0, sentAt: -Infinity };
    if (this.state === 'closed') return;
    this.state = 'connecting';
    const { first, max } = this.timings.backoffMs;
    const wait = Math.min(max, first * 2 ** this.failures++);
    this.retry = setTimeout(() => {
      if (this.state === 'connecting' && this.client === null) this.connect();
    }, wait);
    this.retry.unref();
  }

  private barrier(): void {
    const client = this.client;
    if (client === null || this.state !== 'live') return;
    const now = performance.now();
    if (this.inFlight !== null) {
      if (now - this.inFlight.sentAt > this.timings.deadMs) this.lost(client);
      return;
    }
    const seq = ++this.seq;
    this.inFlight = { seq, sentAt: now };
    this.asked = false;
    client.query('select pg_notify($1, $2)', [this.syncChannel, String(seq)]).catch(() => this.lost(client));
  }

  private received(client: PgModule.Client, channel: string, payload: string, sender: number): void {
    if (client !== this.client) return;
    if (channel === this.syncChannel) {
      if (this.inFlight === null || String(this.inFlight.seq) !== payload) return;
      if (sender !== this.backend) {
        // Sent by another server process than the one listening: a pooler in transaction mode (PgBouncer)
        // hands this connection's statements to several. Notices cannot be relied on: round trips for good.
        this.unsupported();
        return;
      }
      const confirmed = this.inFlight;
      this.confirmed = confirmed;
      this.inFlight = null;
      const done = this.waiters.filter((w) => w.after < confirmed.seq);
      this.waiters = this.waiters.filter((w) => w.after >= confirmed.seq);
      for (const w of done) w.resolve();
      // Again at once only for a caller that is waiting, or was refused for an own write since: an instance
      // that saves without being read sends no barrier per save.
      if ((this.asked && confirmed.seq <= this.lastWriteSeq) || this.waiters.length > 0) this.barrier();
      return;
    }
    const toRead = TO_READ[payload.charAt(0)];
    if (toRead !== undefined && payload.length > 1 && Number.isSafeInteger(Number(payload.slice(1)))) {
      for (const fn of this.toRead) fn(toRead);
      return;
    }
    const change = parseChange(payload);
    if (change === null) {
      this.dropAll(); // a notice this version cannot read (a newer instance's?): forget everything
      return;
    }
    this.generation++;
    this.recent.push(change);
    if (this.recent.length > RECENT) this.recent.shift();
    for (const fn of this.subscribers) fn(change);
  }

  private unsupported(): void {
    this.state = 'unsupported';
    const client = this.client;
    this.client = null;
    this.dropAll();
    for (const w of this.waiters.splice(0)) w.resolve();
    void client?.end().catch(() => undefined);
    this.onUnsupported?.();
  }

  private dropAll(): void {
    this.allAt = ++this.generation;
    for (const fn of this.subscribers) fn(null);
  }
}

/** The notices of links to read, by their first letter. */
const TO_READ: Readonly<Record<string, ToRead>> = { s: 'saved', r: 'imported' };

function parseChange(payload: string): Invalidation | null {
  const rest = payload.slice(1);
  if (payload.startsWith('a') || payload.startsWith('q')) {
    const id = Number(rest);
    if (!Number.isSafeInteger(id)) return null;
    return payload.startsWith('a') ? { kind: 'account', id } : { kind: 'queue', id };
  }
  return payload.startsWith('k') && rest !== '' ? { kind: 'key', prefix: rest } : null;
}
