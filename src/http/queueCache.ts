/**
 * The serialised GET response per account, keyed by the account's queue version. Every change to a
 * queue bumps that version in the same transaction (on any instance), and every GET reads the current
 * version while authenticating, so a cached body is served only while it is still exact.
 */
export class QueueCache {
  private readonly entries = new Map<number, { version: number; body: Buffer }>();

  constructor(private readonly maxAccounts = 1000) {}

  get(accountId: number, version: number): Buffer | undefined {
    const e = this.entries.get(accountId);
    return e !== undefined && e.version === version ? e.body : undefined;
  }

  set(accountId: number, version: number, body: Buffer): void {
    this.entries.delete(accountId);
    if (this.entries.size >= this.maxAccounts) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(accountId, { version, body });
  }
}
