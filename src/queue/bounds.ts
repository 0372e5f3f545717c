/**
 * An upper bound of each account's queue length, as of a queue version. Every change to a queue advances
 * its version in the same transaction (lockQueue, on any instance), so a bound recorded at version v is
 * still a bound when this process's own transaction has just advanced the version from v; for any other
 * version it is ignored and the bound is read from the database again. Nothing is used without that
 * check, so several instances stay correct.
 */
export class LengthBounds {
  private readonly entries = new Map<number, { version: number; bound: number }>();

  constructor(private readonly maxAccounts = 10_000) {}

  get(accountId: number, version: number): number | undefined {
    const e = this.entries.get(accountId);
    return e !== undefined && e.version === version ? e.bound : undefined;
  }

  /** The last bound recorded for the account, and the version it was recorded at. */
  latest(accountId: number): { version: number; bound: number } | undefined {
    return this.entries.get(accountId);
  }

  set(accountId: number, version: number, bound: number): void {
    const e = this.entries.get(accountId);
    if (e !== undefined && e.version >= version) return; // a later transaction got there first
    this.entries.delete(accountId);
    if (this.entries.size >= this.maxAccounts) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(accountId, { version, bound });
  }
}
