import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
