import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';
import { accountById } from '../store/accounts.js';
import {
  type ApiClientInfo,
  apiClientByPublicId,
  apiClientsOf,
  deleteApiClient,
  insertApiClient,
  touchApiClient,
} from '../store/apiClients.js';
import { deleteApiToken, deleteExpiredApiTokens, insertApiTokens, liveToken } from '../store/apiTokens.js';
import { type AccountId, grantAccount } from './authorize.js';
import type { PasswordHolds } from './passwordHolds.js';
import { signInWithPassword } from './passwords.js';

export type { ApiClientInfo } from '../store/apiClients.js';

/*
 * The wallabag-compatible API's clients (issue 35, points 1 and 2): an app an account let in, and the
 * OAuth tokens it is given, by its secret and the account's password, or by a refresh token. Secrets and
 * tokens are 256 random bits, shown once, stored as their SHA-256 (as API keys are: keys.ts), never
 * logged. A client signs in only the account it was made for; revoking it ends its tokens at once (each
 * request reads its token, store/apiTokens.ts liveToken).
 */

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 14 * 24 * 60 * 60;
export const CLIENT_NAME_MAX = 100;
/** The longest client id, secret or token read (ours are 44–48 characters). */
export const CREDENTIAL_MAX = 200;

const secretHash = (secret: string): string => hash('sha256', secret, 'hex');
const random = (): string => randomBytes(32).toString('base64url');

/** Makes a client for the account; its secret is in the answer only. Null when the account is gone. */
export async function createApiClient(
  store: Store,
  accountId: AccountId,
  name: string,
  now: Date,
): Promise<{ client: ApiClientInfo; clientSecret: string } | null> {
  const label = name.trim();
  if (label === '' || label.length > CLIENT_NAME_MAX) {
    throw new TidingsError('invalid_input', `a client's name is 1 to ${CLIENT_NAME_MAX} characters`, {
      facts: { reason: 'name_length', max: CLIENT_NAME_MAX },
    });
  }
  if ((await accountById(store.db, accountId)) === null) return null;
  const clientSecret = random();
  const client = await insertApiClient(
    store.db,
    accountId,
    {
      name: label,
      clientId: `${accountId}_${randomBytes(16).toString('base64url')}`,
      secretHash: secretHash(clientSecret),
    },
    now.toISOString(),
  );
  return { client, clientSecret };
}

export function listApiClients(store: Store, accountId: AccountId): Promise<ApiClientInfo[]> {
  return apiClientsOf(store.db, accountId);
}

/** Revokes one of the account's clients and ends its tokens; `not_found` when it has none of that id. */
export async function revokeApiClient(store: Store, accountId: AccountId, id: number): Promise<void> {
  if (!(await deleteApiClient(store.db, accountId, id))) {
    throw new TidingsError('not_found', `no client ${id} for this account`);
  }
}

/** The tokens given, as OAuth answers them. */
export interface TokenGrant {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Why no token was given, as OAuth names it. */
export type GrantRefusal =
  | { error: 'invalid_client' | 'invalid_grant'; description: string }
  /** Password sign-in of the account is held (passwordHolds.ts): nothing was checked. */
  | { error: 'held'; seconds: number };

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

const BAD_CLIENT: GrantRefusal = {
  error: 'invalid_client',
  description: 'The client credentials are invalid',
};

/** The client these credentials name, when the secret is its own. */
async function checkedClient(store: Store, given: ClientCredentials) {
  if (given.clientId.length > CREDENTIAL_MAX || given.clientSecret.length > CREDENTIAL_MAX) return null;
  const client = given.clientId === '' ? null : await apiClientByPublicId(store.db, given.clientId);
  const presented = hash('sha256', given.clientSecret, 'buffer');
  // Compared whether or not the client exists: the time does not tell which ids do.
  const stored = Buffer.from(client?.secret_hash ?? secretHash(random()), 'hex');
  return timingSafeEqual(presented, stored) && client !== null ? client : null;
}

async function issueTokens(
  store: Store,
  accountId: number,
  clientId: number,
  now: Date,
): Promise<TokenGrant> {
  const at = now.toISOString();
  const accessToken = random();
  const refreshToken = random();
  const later = (seconds: number): string => new Date(now.getTime() + seconds * 1000).toISOString();
  await insertApiTokens(
    store.db,
    accountId,
    clientId,
    [
      { kind: 'access', tokenHash: secretHash(accessToken), expiresAt: later(ACCESS_TOKEN_SECONDS) },
      { kind: 'refresh', tokenHash: secretHash(refreshToken), expiresAt: later(REFRESH_TOKEN_SECONDS) },
    ],
    at,
  );
  await touchApiClient(store.db, clientId, at);
  // Expired tokens are forgotten a few at a time, as new ones are given.
  await deleteExpiredApiTokens(store.db, at, 100);
  return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_SECONDS };
}

/**
 * grant_type=password: the client's credentials, and the account's name or e-mail address and password
 * (signInWithPassword, with the web's holds: a wrong one counts as a failed sign-in). A right password of
 * another account than the client's is refused as a wrong one.
 */
export async function grantWithPassword(
  store: Store,
  given: ClientCredentials & { username: string; password: string },
  now: Date,
  holds: PasswordHolds,
): Promise<TokenGrant | GrantRefusal> {
  const client = await checkedClient(store, given);
  if (client === null) return BAD_CLIENT;
  const signedIn = await signInWithPassword(store, given.username, given.password, now, holds);
  if (signedIn !== null && 'heldSeconds' in signedIn) return { error: 'held', seconds: signedIn.heldSeconds };
  if (signedIn === null || signedIn.accountId !== client.account_id) {
    return { error: 'invalid_grant', description: 'Invalid username and password combination' };
  }
  return issueTokens(store, client.account_id, client.id, now);
}

/** grant_type=refresh_token: a refresh token is used once, and answered with a new pair. */
export async function grantWithRefresh(
  store: Store,
  given: ClientCredentials & { refreshToken: string },
  now: Date,
): Promise<TokenGrant | GrantRefusal> {
  const client = await checkedClient(store, given);
  if (client === null) return BAD_CLIENT;
  const token =
    given.refreshToken === '' || given.refreshToken.length > CREDENTIAL_MAX
      ? null
      : await liveToken(store.db, 'refresh', secretHash(given.refreshToken), now.toISOString());
  if (token === null || token.clientId !== client.id || !(await deleteApiToken(store.db, token.id))) {
    return { error: 'invalid_grant', description: 'Invalid refresh token' };
  }
  return issueTokens(store, token.accountId, client.id, now);
}

/** The account an access token acts for; null when it is unknown, expired or its client revoked. */
export async function authenticateAccessToken(
  store: Store,
  token: string,
  now: Date,
): Promise<{ accountId: AccountId; clientId: number } | null> {
  if (token === '' || token.length > CREDENTIAL_MAX) return null;
  const live = await liveToken(store.db, 'access', secretHash(token), now.toISOString());
  return live === null ? null : { accountId: grantAccount(live.accountId), clientId: live.clientId };
}
