import { limitAddress } from './clientAddress.js';

/**
 * Counts attempts per client address, in fixed windows that start at an address's first counted attempt.
 * Past the limit the address gets 429 until its window ends. Addresses are counted by the one rule of
 * `clientAddress.ts` (an IPv6 address by its /64). State is per process and bounded in size.
 *
 * Two ways to count: `recordFailure` after a failure (the API: a valid key is never counted or slowed), and
 * `reserve` before the check (sign-in: each attempt is counted before its password is checked, so that
 * attempts sent at once cannot all pass a limit read before any of them failed; a success gives its
 * reservation back with `giveBack`).
 */
export class InvalidKeyLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit = 30,
    private readonly windowMs = 60_000,
    private readonly maxAddresses = 100_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records one failure; returns the seconds to wait when the address is over the limit, else 0. */
  recordFailure(address: string): number {
    const t = this.clock();
    const w = this.window(limitAddress(address), t);
    w.count++;
    return w.count > this.limit ? this.secondsLeft(w, t) : 0;
  }

  /**
   * Counts one attempt before it is checked. Returns 0 when it may go ahead (it is counted), else the
   * seconds to wait (nothing counted): with a limit of 10, ten attempts in a window go ahead, right or not,
   * however many are sent at once, and the eleventh is refused without being checked.
   */
  reserve(address: string): number {
    const t = this.clock();
    const w = this.window(limitAddress(address), t);
    if (w.count >= this.limit) return this.secondsLeft(w, t);
    w.count++;
    return 0;
  }

  /** Gives back an attempt `reserve` counted, which succeeded (in the same window; else nothing to do). */
  giveBack(address: string): void {
    const w = this.windows.get(limitAddress(address));
    if (w !== undefined && this.clock() - w.start < this.windowMs && w.count > 0) w.count--;
  }

  /**
   * The seconds an address that has used up its attempts must still wait, counting nothing (0 when it may
   * go ahead): for a request that is refused while the address is held, but is not itself an attempt.
   */
  retryAfter(address: string): number {
    const w = this.windows.get(limitAddress(address));
    if (w === undefined || w.count < this.limit) return 0;
    const t = this.clock();
    return t - w.start < this.windowMs ? this.secondsLeft(w, t) : 0;
  }

  /** The address's live window, a new one when it had none or its window has ended. */
  private window(key: string, t: number): { start: number; count: number } {
    let w = this.windows.get(key);
    if (w === undefined || t - w.start >= this.windowMs) {
      if (w !== undefined) this.windows.delete(key);
      else if (this.windows.size >= this.maxAddresses) this.sweep(t);
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    return w;
  }

  private secondsLeft(w: { start: number }, t: number): number {
    return Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
  }

  private sweep(t: number): void {
    for (const [address, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(address);
    // Still full of live windows (a flood of distinct addresses): forget the oldest.
    while (this.windows.size >= this.maxAddresses) {
      const oldest = this.windows.keys().next();
      if (oldest.done === true) break;
      this.windows.delete(oldest.value);
    }
  }
}
