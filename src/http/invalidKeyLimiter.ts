/**
 * Counts requests with a missing or invalid API key per client address, in fixed one-minute windows
 * that start at an address's first failure. Past the limit the address gets 429 until its window ends.
 * Requests with a valid key are never counted or refused. State is per process and bounded in size.
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
    let w = this.windows.get(address);
    if (w === undefined || t - w.start >= this.windowMs) {
      if (w !== undefined) this.windows.delete(address);
      else if (this.windows.size >= this.maxAddresses) this.sweep(t);
      w = { start: t, count: 0 };
      this.windows.set(address, w);
    }
    w.count++;
    return w.count > this.limit ? Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000)) : 0;
  }

  /**
   * The seconds an address that has used up its failures must still wait, counting nothing (0 when it may
   * try again): for a caller that refuses such an address before checking its credentials at all, as
   * sign-in does. With a limit of 10, the eleventh attempt in the window is refused, right key or not.
   */
  retryAfter(address: string): number {
    const w = this.windows.get(address);
    if (w === undefined || w.count < this.limit) return 0;
    const left = w.start + this.windowMs - this.clock();
    return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : 0;
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
