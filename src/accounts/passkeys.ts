import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  WebAuthnCredential,
} from '@simplewebauthn/server';
import { lazy } from '../lib/lazy.js';
import type { Store } from '../store/db.js';
import { createPasskey, passkeyByCredentialId, passkeyIdsOf, recordPasskeyUse } from '../store/passkeys.js';
import { saveWebauthnChallenge, takeWebauthnChallenge } from '../store/webauthnChallenges.js';
import { type AccountId, grantAccount } from './authorize.js';
import { checkPasskeyName } from './passkeyList.js';
import { parseAuthenticationResponse, parseRegistrationResponse } from './passkeyResponses.js';

/** Loaded by the first passkey ceremony: most servers never see one. */
const webauthn = lazy(() => import('@simplewebauthn/server'));

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server): adding one to a signed-in account, and signing in
 * with one without a user name (discoverable credentials). The relying party is the public base URL: its
 * host is the RP ID and its origin the only origin accepted. Each ceremony's challenge is made here, kept in
 * webauthn_challenges bound to the session (adding) or the sign-in form's cookie (signing in), and used
 * once; the browser's copy is never trusted.
 */

export interface RelyingParty {
  /** The host of the base URL (a domain name: browsers refuse IP addresses). */
  id: string;
  /** The base URL's origin, e.g. https://tidings.example.org. */
  origin: string;
  name: string;
}

export function relyingParty(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  return { id: url.hostname, origin: url.origin, name: 'Tidings' };
}

/**
 * Why a browser cannot use passkeys at this base URL, or null when it can: WebAuthn needs a secure context
 * (https, or http on localhost) and a domain name as the relying party's id (never an IP address).
 */
export function passkeyProblem(baseUrl: string): 'ip_address' | 'plain_http' | null {
  const url = new URL(baseUrl);
  if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) return 'ip_address';
  const local = url.hostname === 'localhost' || url.hostname.endsWith('.localhost');
  return url.protocol === 'https:' || local ? null : 'plain_http';
}

/** How long a ceremony may take, from the options to the answer. */
export const CHALLENGE_SECONDS = 5 * 60;
const TIMEOUT_MS = 2 * 60 * 1000;

const challengeId = (purpose: 'register' | 'sign_in', binding: string): string =>
  createHash('sha256').update(`${purpose}:${binding}`).digest('hex');

const expiry = (now: Date): string => new Date(now.getTime() + CHALLENGE_SECONDS * 1000).toISOString();

/** An account signed in with one of its passkeys. */
export interface PasskeySignIn {
  accountId: AccountId;
  method: 'passkey';
  passkeyId: number;
}

/**
 * The options for navigator.credentials.create(): a discoverable credential (so that signing in needs no
 * user name), none of the account's passkeys again. `binding` is the session's id.
 */
export async function passkeyRegistrationOptions(
  store: Store,
  accountId: AccountId,
  input: { binding: string; userName: string; rp: RelyingParty },
  now: Date,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await passkeyIdsOf(store.db, accountId);
  // One user handle per account, random (it says nothing about the account), shared by its passkeys.
  const userHandle = existing[0]?.userHandle ?? randomBytes(32).toString('base64url');
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: input.rp.name,
    rpID: input.rp.id,
    userName: input.userName,
    userDisplayName: input.userName,
    userID: new Uint8Array(Buffer.from(userHandle, 'base64url')),
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await saveWebauthnChallenge(store.db, accountId, {
    id: challengeId('register', input.binding),
    challenge: options.challenge,
    userHandle,
    expiresAt: expiry(now),
    now: now.toISOString(),
  });
  return options;
}

export type PasskeyAdded = 'added' | 'invalid' | 'expired' | 'duplicate';

/**
 * Checks the browser's answer to the options made for this session and stores the passkey under `name`
 * (invalid_input when it is empty or too long). 'expired': no
 * challenge is waiting (too late, used already, or never asked); 'invalid': the answer does not verify.
 */
export async function addPasskey(
  store: Store,
  accountId: AccountId,
  input: { binding: string; rp: RelyingParty; response: string | undefined; name: string | undefined },
  now: Date,
): Promise<PasskeyAdded> {
  const name = checkPasskeyName(input.name);
  const waiting = await takeWebauthnChallenge(
    store.db,
    challengeId('register', input.binding),
    now.toISOString(),
  );
  if (waiting === null || waiting.accountId !== accountId || waiting.userHandle === null) return 'expired';
  const response = parseRegistrationResponse(input.response);
  if (response === null) return 'invalid';
  let credential: WebAuthnCredential;
  try {
    const verified = await (
      await webauthn()
    ).verifyRegistrationResponse({
      response,
      expectedChallenge: waiting.challenge,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      requireUserVerification: false,
    });
    if (!verified.verified) return 'invalid';
    credential = verified.registrationInfo.credential;
  } catch {
    return 'invalid'; // the library throws for an answer that does not verify
  }
  const added = await createPasskey(store.db, accountId, {
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: response.response.transports ?? credential.transports ?? [],
    userHandle: waiting.userHandle,
    name,
    createdAt: now.toISOString(),
  });
  return added ? 'added' : 'duplicate';
}

/** The options for navigator.credentials.get(), bound to the sign-in form's cookie token. */
export async function passkeySignInOptions(
  store: Store,
  input: { binding: string; rp: RelyingParty },
  now: Date,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID: input.rp.id,
    timeout: TIMEOUT_MS,
    userVerification: 'preferred',
  });
  await saveWebauthnChallenge(store.db, null, {
    id: challengeId('sign_in', input.binding),
    challenge: options.challenge,
    userHandle: null,
    expiresAt: expiry(now),
    now: now.toISOString(),
  });
  return options;
}

/**
 * The account whose passkey signed the challenge made for this sign-in form; null for anything else (no
 * challenge waiting, an unknown credential, a user handle that is not the credential's, a bad signature, a
 * counter that went back).
 */
export async function signInWithPasskey(
  store: Store,
  input: { binding: string; rp: RelyingParty; response: string | undefined },
  now: Date,
): Promise<PasskeySignIn | null> {
  const waiting = await takeWebauthnChallenge(
    store.db,
    challengeId('sign_in', input.binding),
    now.toISOString(),
  );
  if (waiting === null || waiting.accountId !== null) return null;
  const response = parseAuthenticationResponse(input.response);
  if (response === null) return null;
  const passkey = await passkeyByCredentialId(store.db, response.id);
  if (passkey === null) return null;
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== passkey.userHandle) return null;
  let newCounter: number;
  try {
    const verified = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response,
      expectedChallenge: waiting.challenge,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: false,
    });
    if (!verified.verified) return null;
    newCounter = verified.authenticationInfo.newCounter;
  } catch {
    return null; // the library throws for an answer that does not verify
  }
  await recordPasskeyUse(store.db, passkey.accountId, passkey.id, newCounter, now.toISOString());
  return { accountId: grantAccount(passkey.accountId), method: 'passkey', passkeyId: passkey.id };
}
