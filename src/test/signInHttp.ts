import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TrustProxy } from '../config.js';
import { InvalidKeyLimiter } from '../http/invalidKeyLimiter.js';
import { buildServer } from '../http/server.js';
import type { Store } from '../store/db.js';
import { silentLogger } from './harness.js';

/**
 * The whole server listening on loopback, for sign-in tests that send requests at once over real
 * connections (inject would run them one after another's parsing). Its limiters and pages share `clock`.
 */
export async function signInServer(
  store: Store,
  options: { trustProxy?: TrustProxy; clock: () => number; baseUrl?: string },
): Promise<{ app: FastifyInstance; base: string }> {
  const config = {
    trustProxy: options.trustProxy ?? false,
    queueLimit: 10_000,
    baseUrl: options.baseUrl ?? 'http://127.0.0.1:8080',
  };
  const app = buildServer({
    config,
    store,
    logger: silentLogger,
    limiter: new InvalidKeyLimiter(30, 60_000, 100_000, options.clock),
    signInLimiter: new InvalidKeyLimiter(10, 15 * 60_000, 100_000, options.clock),
    now: () => new Date(options.clock()),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, base: `http://127.0.0.1:${port}` };
}

export interface HttpAnswer {
  status: number;
  body: string;
  headers: Headers;
}

/** A sign-in form as a browser holds it: the double-submit cookie and the form's token. */
export interface SignInFormState {
  cookie: string;
  csrf: string;
}

/** GET /sign-in: the cookie and token a form POST needs. */
export async function openSignInForm(
  base: string,
  headers: Record<string, string> = {},
): Promise<SignInFormState> {
  const res = await fetch(`${base}/sign-in`, { headers: { accept: 'text/html', ...headers } });
  const body = await res.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
  if (csrf === undefined) throw new Error(`no form token on the sign-in page (${res.status})`);
  const cookie = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .join('; ');
  return { cookie, csrf };
}

/** POSTs a form (with the form's token and cookie) over a connection of its own; redirects not followed. */
export async function postForm(
  base: string,
  path: string,
  form: SignInFormState,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const body = new URLSearchParams({ _csrf: form.csrf, ...fields });
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
      cookie: form.cookie,
      ...headers,
    },
    body: body.toString(),
  });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

/** How many answers had each status, such as { 401: 10, 429: 40 }. */
export function statusCounts(answers: readonly HttpAnswer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}
