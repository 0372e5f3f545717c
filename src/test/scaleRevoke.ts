/**
 * A key revoked through one instance's web app is refused by the others: how long each took (issue 14,
 * point 5). The browser's part is plain HTTP: the sign-in form's double-submit cookie, the session
 * cookie, the Keys page's CSRF token.
 */
import { performance } from 'node:perf_hooks';
import { issueKey } from '../accounts/apiKeys.js';
import { operatorAccount } from '../accounts/authorize.js';
import { createAccountWithKey } from '../accounts/service.js';
import type { Store } from '../store/db.js';
import { type ServerProcess, request } from './process.js';
import { keepCookies } from './webClient.js';

/** A browser over real HTTP (webClient.ts is one over inject): cookies and the last page's CSRF token. */
class Browser {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(private readonly baseUrl: string) {}

  async get(path: string): Promise<number> {
    return this.send('GET', path);
  }

  async post(path: string, fields: Record<string, string>): Promise<number> {
    const form = new URLSearchParams({ _csrf: this.csrf, ...fields }).toString();
    return this.send('POST', path, form);
  }

  private async send(method: string, path: string, form?: string): Promise<number> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(`${this.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'text/html',
        ...(cookie === '' ? {} : { cookie }),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { body: form }),
    });
    keepCookies(this.cookies, res.headers['set-cookie'] ?? []);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token !== undefined) this.csrf = token;
    return res.status;
  }
}

async function getQueue(server: ServerProcess, apiKey: string): Promise<number> {
  return (await request(`${server.baseUrl}/api/v1/articles?apiKey=${apiKey}`)).status;
}

export interface RevokeResult {
  /** Per instance other than the first: ms from the revocation's answer to its first 401 for the key. */
  propagationMs: number[];
  /** What the revoking instance answers for the key right after. */
  revokerStatus: number;
  /** What every instance answers for the account's other key afterwards. */
  otherKeyStatuses: number[];
}

/**
 * An account with two keys: signed in on servers[0]'s web app with the first, it revokes the second,
 * which every instance has just accepted; then the other instances are asked with it (each as fast as it
 * answers) until they refuse it, for at most `timeoutMs`.
 */
export async function revokeAcrossInstances(
  store: Store,
  servers: readonly ServerProcess[],
  timeoutMs = 5000,
): Promise<RevokeResult> {
  const [revoker, ...others] = servers;
  if (revoker === undefined) throw new Error('no instance');
  const { account, apiKey } = await createAccountWithKey(store, { name: 'revoker' });
  await store.db
    .updateTable('accounts')
    .set({ digest_due_at: '2999-01-01T00:00:00.000Z' })
    .where('id', '=', account.id)
    .execute();
  const spare = await issueKey(store, await operatorAccount(store, account.id), 'spare');
  if (spare === null) throw new Error('no spare key');
  for (const server of servers) {
    const status = await getQueue(server, spare.apiKey);
    if (status !== 200) throw new Error(`${server.baseUrl} answered ${status} for the spare key`);
  }

  const browser = new Browser(revoker.baseUrl);
  await browser.get('/sign-in');
  const signedIn = await browser.post('/sign-in', { key: apiKey });
  if (signedIn !== 303) throw new Error(`signing in answered ${signedIn}`);
  await browser.get('/keys');
  const revoked = await browser.post(`/keys/${spare.keyInfo.id}/revoke`, {});
  if (revoked !== 303) throw new Error(`revoking answered ${revoked}`);
  const at = performance.now();

  const propagationMs = await Promise.all(
    others.map(async (server) => {
      for (;;) {
        const status = await getQueue(server, spare.apiKey);
        const elapsed = performance.now() - at;
        if (status === 401) return elapsed;
        if (status !== 200) throw new Error(`${server.baseUrl} answered ${status}`);
        if (elapsed > timeoutMs) return Infinity;
      }
    }),
  );
  return {
    propagationMs,
    revokerStatus: await getQueue(revoker, spare.apiKey),
    otherKeyStatuses: await Promise.all(servers.map((s) => getQueue(s, apiKey))),
  };
}
