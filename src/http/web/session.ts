import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../accounts/sessions.js';

/** Secure cookies (and the __Host- prefix, which requires them) when the instance is served over https. */
export const isSecure = (baseUrl: string): boolean => baseUrl.toLowerCase().startsWith('https:');

export const sessionCookieName = (secure: boolean): string =>
  secure ? '__Host-tidings_session' : 'tidings_session';

/** The sign-in form's own CSRF cookie (double submit: there is no session yet to bind a token to). */
export const signInCookieName = (secure: boolean): string =>
  secure ? '__Host-tidings_signin' : 'tidings_signin';

/** Constant-time comparison of two tokens (different lengths are simply unequal). */
export function tokensMatch(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  const value = parseCookie(header)[name];
  return value === '' ? undefined : value;
}

export function setCookie(
  reply: FastifyReply,
  secure: boolean,
  name: string,
  value: string,
  maxAgeSeconds: number,
): void {
  const line = stringifySetCookie({
    name,
    value,
    maxAge: maxAgeSeconds,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
  });
  reply.header('set-cookie', line); // Fastify adds each Set-Cookie to those already set
}

export const clearCookie = (reply: FastifyReply, secure: boolean, name: string): void => {
  setCookie(reply, secure, name, '', 0);
};

/**
 * Double submit, for the forms shown before there is a session (sign-in, an invitation): the token of the
 * form's cookie `name` when it is well formed, else a new one, set (again) on the answer for `maxAgeSeconds`.
 * The page puts it in the form's `_csrf` field.
 */
export function issueFormToken(
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  name: string,
  maxAgeSeconds: number,
): string {
  const existing = readCookie(request, name);
  const token = existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken();
  setCookie(reply, secure, name, token, maxAgeSeconds);
  return token;
}

/** The double-submit check: the cookie's token when the form's `presented` one matches it, else null. */
export function checkedFormToken(
  request: FastifyRequest,
  name: string,
  presented: string | undefined,
): string | null {
  const expected = readCookie(request, name);
  if (expected === undefined || presented === undefined || !tokensMatch(presented, expected)) return null;
  return expected;
}
