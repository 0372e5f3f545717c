import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** A worker's name in leases: unique per process, readable in the database. */
export const workerId = (): string => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** Thrown inside a transaction to roll it back when the lease it works under is gone. */
export class LeaseLost extends Error {
  override name = 'LeaseLost';
}

/** Background work that runs until stopped: in `serve` (unless disabled) and in `worker`. */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}

export interface LoopOptions {
  /** The worker's name, as a person reads it: "feed poller". */
  name: string;
  /** One pass; `signal` is aborted when stop() is called, for a pass that can end early. */
  pass: (signal: AbortSignal) => Promise<void>;
  /** How long to sleep after a pass, asked after each one. */
  sleepMs: () => number | Promise<number>;
  /** A pino logger, or anything with its error(). */
  log: { error(obj: { err: unknown }, message: string): void };
  /** The log message of a pass that threw: "poll pass failed; retrying shortly". */
  failed: string;
  /** Runs once the loop has ended, at stop(). */
  onStop?: () => void;
  /**
   * Subscribes the loop's wake-up (there is work now: a link was saved), returning how to unsubscribe
   * (called at stop()). A wake-up ends the sleep at once; one that comes during a pass makes the next
   * pass start as soon as this one ends. Wake-ups are not counted: many during one pass make one more.
   */
  wakeOn?: (wake: () => void) => () => void;
}

/**
 * Runs `pass` then sleeps, until stopped; a pass that throws is logged and the next one tries again.
 * stop() wakes a sleeping loop at once, lets a pass under way finish, and resolves when the loop has ended.
 * A wake-up (`wakeOn`) ends a sleep early, or skips the next one.
 */
export function startLoop(opts: LoopOptions): Worker {
  const stopping = new AbortController();
  const stopped = (): boolean => stopping.signal.aborted;
  /** Wake-ups so far, and the sleep they end. */
  let wakeUps = 0;
  let napping: AbortController | null = null;
  const unsubscribe = opts.wakeOn?.(() => {
    wakeUps++;
    napping?.abort();
  });
  const loop = (async () => {
    while (!stopped()) {
      const before = wakeUps;
      try {
        await opts.pass(stopping.signal);
      } catch (err) {
        opts.log.error({ err }, opts.failed);
      }
      const ms = await opts.sleepMs();
      // Woken since the pass began: what woke it may have come too late for the pass to see.
      if (wakeUps !== before) continue;
      if (stopped()) break;
      napping = new AbortController();
      // Rejects at once when stop() or a wake-up aborts it (after stop() the loop then ends).
      await sleep(ms, undefined, { signal: napping.signal }).catch(() => undefined);
      napping = null;
    }
  })();
  return {
    name: opts.name,
    stop: async () => {
      stopping.abort();
      napping?.abort();
      await loop;
      unsubscribe?.();
      opts.onStop?.();
    },
  };
}
