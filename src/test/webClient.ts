import type { InboundConfig } from '../config.js';
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { InvalidKeyLimiter } from '../http/invalidKeyLimiter.js';
import { buildServer } from '../http/server.js';
import type { Store } from '../store/db.js';
import { silentLogger } from './harness.js';

/** The value of the first hidden _csrf field in a page. */
export function csrfIn(body: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
  assert.ok(token !== undefined, 'the page has a _csrf field');
  return token;
}

/** Set-Cookie lines of a response. */
export function setCookies(res: LightMyRequestResponse): string[] {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

/** What a browser does with Set-Cookie lines: keeps each cookie, forgets a cleared or expired one. */
export function keepCookies(cookies: Map<string, string>, setCookieLines: readonly string[]): void {
  for (const line of setCookieLines) {
    const [pair] = line.split(';');
    const eq = (pair ?? '').indexOf('=');
    const name = (pair ?? '').slice(0, eq);
    const value = (pair ?? '').slice(eq + 1);
    if (value === '' || /Max-Age=0/i.test(line)) cookies.delete(name);
    else cookies.set(name, value);
  }
}

/**
 * A browser over inject: keeps cookies, sends forms, finds the CSRF token of the last page it read.
 * Enough for HTTP-level tests of the web app; the real browser tests drive Chromium.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: FastifyInstance,
    readonly remoteAddress = '127.0.0.1',
  ) {}

  private cookieHeader(): Record<string, string> {
    const value = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return value === '' ? {} : { cookie: value };
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    keepCookies(this.cookies, setCookies(res));
    const type = String(res.headers['content-type'] ?? '');
    if (type.startsWith('text/html')) {
      const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
      if (token !== undefined) this.csrf = token;
    }
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html', ...this.cookieHeader(), ...headers },
        remoteAddress: this.remoteAddress,
      }),
    );
  }

  /** POSTs a form; `_csrf` is the last page's token unless the fields give one (null: none at all). */
  async post(url: string, fields: Record<string, string | null> = {}): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    if (!('_csrf' in fields)) form.set('_csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) if (v !== null) form.set(k, v);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: {
          accept: 'text/html',
          'content-type': 'application/x-www-form-urlencoded',
          ...this.cookieHeader(),
        },
        payload: form.toString(),
        remoteAddress: this.remoteAddress,
      }),
    );
  }

  /** Signs in with a key through the form; asserts it worked. */
  async signIn(apiKey: string): Promise<void> {
    await this.get('/sign-in');
    const res = await this.post('/sign-in', { key: apiKey });
    assert.equal(res.statusCode, 303, res.body);
    await this.get('/queue');
  }
}

/** A server for web tests: the harness's, with the web app's knobs. */
export function webServer(
  store: Store,
  options: {
    baseUrl?: string;
    queueLimit?: number;
    signInLimiter?: InvalidKeyLimiter;
    smtp?: { smtpUrl: string; mailFrom: string };
    /** Let feeds be fetched from loopback (the tests' feed servers). */
    allowPrivateNetworks?: boolean;
    /** TIDINGS_MAX_SUBSCRIPTIONS (2,000 by default). */
    maxSubscriptions?: number;
    /** The clock of the pages and of the digests they build. */
    now?: () => Date;
    /** TIDINGS_MEDIA_PROXY (on by default). */
    mediaProxy?: boolean;
    /** Newsletters by e-mail (TIDINGS_INBOUND_*): the Newsletters page's address. */
    inbound?: InboundConfig;
  } = {},
): FastifyInstance {
  return buildServer({
    config: {
      trustProxy: false,
      queueLimit: options.queueLimit ?? 10_000,
      baseUrl: options.baseUrl ?? 'http://127.0.0.1:8080',
      ...options.smtp,
      allowPrivateNetworks: options.allowPrivateNetworks ?? false,
      ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions }),
      ...(options.mediaProxy === undefined ? {} : { mediaProxy: options.mediaProxy }),
      ...(options.inbound === undefined ? {} : { inbound: options.inbound }),
    },
    store,
    logger: silentLogger,
    ...(options.signInLimiter === undefined ? {} : { signInLimiter: options.signInLimiter }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}
