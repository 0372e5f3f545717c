/**
 * The per-account limit on password sign-in (docs/web.md, "Limits on signing in"), beside the web's limit
 * per address: wrong passwords for one account are counted whatever address they come from. After
 * `free` of them in a row, password sign-in of that account is held, for `firstHoldMs`, then twice as long
 * after each further wrong password, never longer than `maxHoldMs`: an attacker with many addresses gets a
 * few guesses an hour, and the owner waits at most `maxHoldMs` (key and passkey sign-in are never held).
 *
 * Every attempt is counted as a failure before its password is checked (`reserve`), so that attempts sent
 * at once cannot all pass; a right password forgets the account's failures (`succeeded`). An identifier
 * that names no account is counted under itself, so that a hold does not tell whether an account exists.
 * Counts are forgotten `forgetMs` after the last attempt. State is in memory, per process: with several
 * serve processes each holds an account by what it saw itself.
 */
export interface HoldPolicy {
  free: number;
  firstHoldMs: number;
  maxHoldMs: number;
  forgetMs: number;
  /** The most accounts and identifiers remembered at once (the oldest are forgotten first). */
  maxKeys: number;
}

export const PASSWORD_HOLD_POLICY: HoldPolicy = {
  free: 5,
  firstHoldMs: 60_000,
  maxHoldMs: 15 * 60_000,
  forgetMs: 60 * 60_000,
  maxKeys: 100_000,
};

interface Failures {
  count: number;
  heldUntil: number;
  lastAt: number;
}

/** What a password attempt is counted under: the account it may sign in, or the identifier typed. */
export type HoldKey = `account:${number}` | `identifier:${string}`;

export const accountHoldKey = (accountId: number): HoldKey => `account:${accountId}`;
export const identifierHoldKey = (identifier: string): HoldKey => `identifier:${identifier.toLowerCase()}`;

export class PasswordHolds {
  private readonly failures = new Map<HoldKey, Failures>();

  constructor(
    private readonly clock: () => number,
    private readonly policy: HoldPolicy = PASSWORD_HOLD_POLICY,
  ) {}

  /**
   * Counts one attempt on each key before the password is checked. Returns 0 when it may be checked, else
   * the seconds until the longest hold among the keys ends (nothing counted).
   */
  reserve(keys: readonly HoldKey[]): number {
    const t = this.clock();
    let waitMs = 0;
    for (const key of keys) {
      const f = this.live(key, t);
      if (f !== undefined && f.heldUntil > t) waitMs = Math.max(waitMs, f.heldUntil - t);
    }
    if (waitMs > 0) return Math.max(1, Math.ceil(waitMs / 1000));
    for (const key of keys) {
      let f = this.live(key, t);
      if (f === undefined) {
        if (this.failures.size >= this.policy.maxKeys) this.sweep(t);
        f = { count: 0, heldUntil: 0, lastAt: t };
        this.failures.set(key, f);
      }
      f.count++;
      f.lastAt = t;
      const over = f.count - this.policy.free;
      if (over >= 0) {
        f.heldUntil = t + Math.min(this.policy.maxHoldMs, this.policy.firstHoldMs * 2 ** Math.min(over, 30));
      }
    }
    return 0;
  }

  /** The password was right: the account's failures are forgotten. */
  succeeded(key: HoldKey): void {
    this.failures.delete(key);
  }

  private live(key: HoldKey, t: number): Failures | undefined {
    const f = this.failures.get(key);
    if (f === undefined || this.expired(f, t)) {
      if (f !== undefined) this.failures.delete(key);
      return undefined;
    }
    return f;
  }

  private expired(f: Failures, t: number): boolean {
    return f.heldUntil <= t && t - f.lastAt >= this.policy.forgetMs;
  }

  private sweep(t: number): void {
    for (const [key, f] of this.failures) if (this.expired(f, t)) this.failures.delete(key);
    while (this.failures.size >= this.policy.maxKeys) {
      const oldest = this.failures.keys().next();
      if (oldest.done === true) break;
      this.failures.delete(oldest.value);
    }
  }
}
