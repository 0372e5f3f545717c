import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/db.js';
import { exclusive } from '../store/precompiled.js';
import {
  type WebSession,
  createWebSession,
  deleteEndedWebSessions,
  deleteWebSession,
  extendWebSession,
  liveWebSession,
} from '../store/webSessions.js';
import { type AccountId, type Authenticated, grantAccount } from './authorize.js';

/**
 * Web sessions live in the database (table web_sessions): every instance sees them, signing out ends
 * one everywhere at once, and revoking the API key a browser signed in with signs that browser out.
 * A browser signs in with an API key, a password or a passkey (the session remembers which).
 * The cookie holds 256 random bits; the table holds only their SHA-256. A session lasts 30 days from
 * its last use (moved on at most once a day, so reading pages does not write on every request).
 */
export const SESSION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
const SESSION_MS = SESSION_DAYS * DAY_MS;

/** A live session as a request sees it: its account is authorised by the session itself. */
export type Session = Omit<WebSession, 'accountId'> & { accountId: AccountId };

export const randomToken = (): string => randomBytes(32).toString('base64url');
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * How a browser signed in: an API key (an `Authenticated`), a password, or a passkey. Revoking the key or
 * deleting the passkey ends the session; changing the password ends the other password sessions.
 */
export type SessionGrant =
  | Pick<Authenticated, 'accountId' | 'keyId'>
  | { accountId: AccountId; method: 'password' }
  | { accountId: AccountId; method: 'passkey'; passkeyId: number };

/** Opens a session for an account that has signed in; the token is for the cookie only. */
export async function openSession(
  store: Store,
  auth: SessionGrant,
  now: Date,
): Promise<{ token: string; maxAgeSeconds: number }> {
  const token = randomToken();
  await store.db.transaction().execute(async (trx) => {
    // Sign-ins are rare: a good moment to forget sessions that have ended.
    await deleteEndedWebSessions(trx, now.toISOString());
    await createWebSession(trx, auth.accountId, {
      id: hashToken(token),
      method: 'keyId' in auth ? 'key' : auth.method,
      keyId: 'keyId' in auth ? auth.keyId : null,
      passkeyId: 'passkeyId' in auth ? auth.passkeyId : null,
      csrfToken: randomToken(),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_MS).toISOString(),
    });
  });
  return { token, maxAgeSeconds: SESSION_MS / 1000 };
}

/**
 * The live session a cookie token names, or null. When the session has gone a day without being moved
 * on, its end is moved to 30 days from now and `renewed` says the cookie should be set again.
 */
export async function findSession(
  store: Store,
  token: string,
  now: Date,
): Promise<{ session: Session; renewed: boolean } | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const id = hashToken(token);
  const row = await exclusive(store.db, (db) => liveWebSession(db, id, now.toISOString()));
  if (row === null) return null;
  const session: Session = { ...row, accountId: grantAccount(row.accountId) };
  const left = Date.parse(session.expiresAt) - now.getTime();
  if (left > SESSION_MS - DAY_MS) return { session, renewed: false };
  const expiresAt = new Date(now.getTime() + SESSION_MS).toISOString();
  await extendWebSession(store.db, session.accountId, id, expiresAt);
  return { session: { ...session, expiresAt }, renewed: true };
}

export async function closeSession(store: Store, session: Session): Promise<void> {
  await deleteWebSession(store.db, session.id);
}
