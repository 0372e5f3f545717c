import { TidingsError } from '../errors.js';

/** The places of uploads' imports: how many read at once, how many may wait, how many of one account. */
export interface TurnLimits {
  /** Imports read at once; further ones wait their turn. */
  running: number;
  /** Imports that may wait; past that an upload is refused (`limit_reached`), its file not kept. */
  waiting: number;
  /** Of the waiting places, the most one account may hold: the others stay open to other accounts. */
  waitingPerAccount: number;
}

interface Waiter {
  account: number;
  start: () => void;
}

/**
 * Who reads next (issue 33 C). A turn is taken at once while fewer than `running` are read; otherwise the
 * upload waits, within `waiting` places in all and `waitingPerAccount` of its account's. When a turn
 * ends, the next goes to the waiting upload whose account has the fewest read now, then to the account
 * served longest ago (or never), then to the one that came first: so with one account's large upload
 * read and more of its own waiting, another account's upload is next, and accounts then take turns. An
 * upload whose client has gone (its `signal` aborted) leaves its place at once.
 */
export class ImportTurns {
  private readonly queue: Waiter[] = [];
  private readonly runningOf = new Map<number, number>();
  /** When each account with an upload read or waiting last got a turn (a count of turns). */
  private readonly servedAt = new Map<number, number>();
  private turns = 0;

  constructor(
    private readonly limits: TurnLimits,
    /** Told the number waiting each time it changes (the tests wait for it). */
    private readonly onWaiting: (waiting: number) => void = () => undefined,
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  get running(): number {
    let n = 0;
    for (const count of this.runningOf.values()) n += count;
    return n;
  }

  /**
   * A turn for the account: at once, or when its place in the queue comes. Refused (`limit_reached`) when
   * the places are taken; rejected with the signal's reason when it is aborted while waiting.
   */
  take(account: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.running < this.limits.running && this.queue.length === 0) {
      this.begin(account);
      return Promise.resolve();
    }
    if (this.queue.length >= this.limits.waiting) {
      throw new TidingsError(
        'limit_reached',
        `${this.running + this.queue.length} imports are being read right now, the most this server takes at once; try again in a few minutes`,
        { facts: { reason: 'import_server_busy' } },
      );
    }
    const own = this.queue.filter((w) => w.account === account).length;
    if (own >= this.limits.waitingPerAccount) {
      throw new TidingsError(
        'limit_reached',
        `${own} of your imports are waiting their turn already, the most one account may have waiting; import this file when one of them is done`,
        { facts: { reason: 'import_waiting', waiting: own } },
      );
    }
    return new Promise((resolve, reject) => {
      const abandoned = (): void => {
        const at = this.queue.indexOf(waiter);
        if (at === -1) return;
        this.queue.splice(at, 1);
        this.forgetIfIdle(account);
        this.onWaiting(this.queue.length);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('the upload was abandoned'));
      };
      const waiter: Waiter = {
        account,
        start: () => {
          signal?.removeEventListener('abort', abandoned);
          this.begin(account);
          resolve();
        },
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', abandoned, { once: true });
      this.onWaiting(this.queue.length);
    });
  }

  /** The account's turn is over: the next waiting upload, chosen as above, starts. */
  done(account: number): void {
    const left = (this.runningOf.get(account) ?? 1) - 1;
    if (left > 0) this.runningOf.set(account, left);
    else this.runningOf.delete(account);
    this.forgetIfIdle(account);
    if (this.running >= this.limits.running) return;
    const next = this.next();
    if (next === undefined) return;
    this.queue.splice(this.queue.indexOf(next), 1);
    this.onWaiting(this.queue.length);
    next.start();
  }

  private next(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestKey: [number, number] = [Infinity, Infinity];
    for (const w of this.queue) {
      const key: [number, number] = [this.runningOf.get(w.account) ?? 0, this.servedAt.get(w.account) ?? -1];
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = w;
        bestKey = key;
      }
    }
    return best;
  }

  private begin(account: number): void {
    this.runningOf.set(account, (this.runningOf.get(account) ?? 0) + 1);
    this.servedAt.set(account, this.turns++);
  }

  /** An account with nothing read or waiting is no longer remembered (its next upload counts as new). */
  private forgetIfIdle(account: number): void {
    if (!this.runningOf.has(account) && !this.queue.some((w) => w.account === account)) {
      this.servedAt.delete(account);
    }
  }
}
