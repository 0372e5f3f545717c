import { createHmac, randomBytes } from 'node:crypto';

/**
 * Passwords verified a moment ago, for a client that sends its password with every request: an OPDS
 * reader's HTTP Basic (the catalogue, each page, each book; issue 35, point 4). Without it each request
 * costs a scrypt verification (accounts/passwordHash.ts: 32 MiB and tens of milliseconds of CPU;
 * bench:opds-auth); with it, one every `ttlMs` per reader.
 *
 * What is kept, for `ttlMs` after a verification (never longer: a hit does not extend it), at most
 * `maxEntries` of them: an HMAC of the identifier and password under a key made at start-up and never
 * stored (so neither the password nor a fast hash that could be tested offline is kept), the account it
 * signed in, and the stored scrypt hash it was verified against. A hit counts only while the account's
 * stored hash is still that one, read with the sign-in's candidates as every sign-in reads them: a changed
 * or removed password (here, by the CLI or on another instance), or a disabled account, is refused at
 * once, and the next attempt is verified by scrypt again. A wrong password is never kept.
 */
export class VerifiedPasswords {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { accountId: number; passwordHash: string; until: number }>();
  /** Sign-ins answered from here, without scrypt. */
  hits = 0;

  constructor(
    private readonly clock: () => number = () => Date.now(),
    private readonly ttlMs = 5 * 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  private id(identifier: string, password: string): string {
    return createHmac('sha256', this.key)
      .update(JSON.stringify([identifier, password]))
      .digest('base64url');
  }

  /**
   * The account these credentials were verified for within `ttlMs`, when its stored hash is still the one
   * they were verified against (`hashes`: what the sign-in would check now); null otherwise.
   */
  recall(
    identifier: string,
    password: string,
    hashes: readonly { accountId: number; passwordHash: string }[],
  ): number | null {
    const id = this.id(identifier, password);
    const kept = this.entries.get(id);
    if (kept === undefined) return null;
    if (kept.until <= this.clock()) {
      this.entries.delete(id);
      return null;
    }
    const current = hashes.find((h) => h.accountId === kept.accountId);
    if (current?.passwordHash !== kept.passwordHash) {
      this.entries.delete(id);
      return null;
    }
    this.hits++;
    return kept.accountId;
  }

  /** Keeps credentials scrypt has just verified against `passwordHash` (the hash stored now). */
  remember(identifier: string, password: string, accountId: number, passwordHash: string): void {
    const id = this.id(identifier, password);
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(id, { accountId, passwordHash, until: this.clock() + this.ttlMs });
  }
}
