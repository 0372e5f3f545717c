import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type Authenticated,
  type AuthenticatedKey,
  authenticate,
  authenticateKey,
  noteKeyUse,
} from '../accounts/authorize.js';
import { ApiError } from './errors.js';
import { type AddOutcome, addSavedUrl } from '../queue/add.js';
import { savedUrls } from '../queue/reads.js';
import type { Metrics } from '../lib/metrics.js';
import type { Store } from '../store/db.js';
import { readBodyParams } from './body.js';
import type { InvalidKeyLimiter } from './invalidKeyLimiter.js';
import type { QueueCache } from './queueCache.js';

export interface ApiDeps {
  store: Store;
  cache: QueueCache;
  limiter: InvalidKeyLimiter;
  queueLimit: number;
  /** Where saves are counted; nothing is counted without it. */
  metrics?: Metrics | undefined;
}

interface Variant {
  path: string;
  /** Name of the key parameter in the query (and, for B, in the body when absent from the query). */
  keyParam: 'apiKey' | 'api_key';
  keyInBody: boolean;
  success: (outcome: AddOutcome) => Buffer;
}

const MESSAGES: Record<AddOutcome, string> = {
  added: 'saved for the next digest',
  title_updated: 'already in the queue; title updated',
  already_queued: 'already in the queue',
};

const successA = Object.fromEntries(
  Object.entries(MESSAGES).map(([k, message]) => [k, Buffer.from(JSON.stringify({ code: 0, message }))]),
) as Record<AddOutcome, Buffer>;
const successB = Buffer.from('{"message":"success"}');

export const VARIANTS: readonly Variant[] = [
  { path: '/api/v1/articles', keyParam: 'apiKey', keyInBody: false, success: (o) => successA[o] },
  { path: '/api', keyParam: 'api_key', keyInBody: true, success: () => successB },
];

export const API_PATHS: ReadonlySet<string> = new Set(VARIANTS.map((v) => v.path));
export const API_METHODS = 'GET, HEAD, POST, OPTIONS';

const JSON_TYPE = 'application/json; charset=utf-8';
/** The original Content-Type of an API POST; see the onRequest hook below. */
const originalContentType = new WeakMap<FastifyRequest, string | undefined>();
const KEY_TOUCH_INTERVAL_MS = 60_000;

export function registerApi(app: FastifyInstance, deps: ApiDeps): void {
  const lastTouched = new Map<number, number>();

  /** The request's key checked by `check` (authenticate, or authenticateKey when no version is needed). */
  async function authorise<A extends AuthenticatedKey>(
    request: FastifyRequest,
    variant: Variant,
    bodyKey: string | undefined,
    check: (store: Store, presented: string) => Promise<A | null>,
  ): Promise<A> {
    const query = request.query as Record<string, string | string[] | undefined>;
    const raw = query[variant.keyParam] ?? (variant.keyInBody ? bodyKey : undefined);
    const auth = typeof raw === 'string' && raw !== '' ? await check(deps.store, raw) : null;
    if (auth !== null) {
      await noteUse(auth);
      return auth;
    }
    const wait = deps.limiter.recordFailure(request.ip);
    if (wait > 0) {
      throw new ApiError(
        'rate_limited',
        `too many requests with a missing or invalid API key; retry in ${wait} s`,
        {
          'retry-after': String(wait),
        },
      );
    }
    if (raw === undefined || raw === '') {
      const where = variant.keyInBody ? 'in the URL query (or the body)' : 'in the URL query';
      throw new ApiError('key_missing', `an API key is required: pass ${variant.keyParam} ${where}`);
    }
    if (Array.isArray(raw)) throw new ApiError('key_invalid', `${variant.keyParam} is given more than once`);
    throw new ApiError(
      'key_invalid',
      'the API key is not valid (it may have been revoked, or its account disabled)',
    );
  }

  /** last_used_at is informational: written at most once a minute per key, never on every request. */
  async function noteUse(auth: AuthenticatedKey): Promise<void> {
    const t = Date.now();
    if (t - (lastTouched.get(auth.keyId) ?? 0) < KEY_TOUCH_INTERVAL_MS) return;
    lastTouched.set(auth.keyId, t);
    await noteKeyUse(deps.store, auth, new Date(t));
  }

  async function queueBody(auth: Authenticated): Promise<Buffer> {
    const cached = deps.cache.get(auth.accountId, auth.queueVersion);
    if (cached !== undefined) return cached;
    const body = Buffer.from(JSON.stringify(await savedUrls(deps.store, auth.accountId)));
    deps.cache.set(auth.accountId, auth.queueVersion, body);
    return body;
  }

  for (const variant of VARIANTS) {
    app.get(variant.path, async (request, reply) => {
      const auth = await authorise(request, variant, undefined, authenticate);
      return send(reply, 200, await queueBody(auth));
    });

    app.post(
      variant.path,
      {
        // Every API body is read raw and decoded by readBodyParams, which honours the spec's
        // "a mismatched Content-Type means the parameters are ignored": Fastify's parsers would 415 or 400.
        onRequest: (request, _reply, done) => {
          originalContentType.set(request, request.headers['content-type']);
          request.headers['content-type'] = 'application/octet-stream';
          done();
        },
      },
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const params = await readBodyParams(originalContentType.get(request), body);
        const auth = await authorise(request, variant, params.fields.get('api_key'), authenticateKey);
        if (params.error !== undefined) throw params.error;
        const url = params.fields.get('url');
        if (url === undefined && params.ignored !== undefined) {
          throw new ApiError(
            'url_missing',
            `url is required; ${params.ignored}, so its parameters were ignored`,
          );
        }
        const outcome = await addSavedUrl(
          deps.store,
          auth.accountId,
          { url, title: params.fields.get('title'), source: 'api' },
          // A save sent from a web page carries an Origin: the bookmarklet's (curl and phones send none).
          {
            limit: deps.queueLimit,
            metrics: deps.metrics,
            via: request.headers.origin ? 'bookmarklet' : 'api',
          },
        );
        return send(reply, 200, variant.success(outcome));
      },
    );

    app.options(variant.path, (request, reply) => {
      const requested = request.headers['access-control-request-headers'];
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header(
          'access-control-allow-headers',
          typeof requested === 'string' ? requested.slice(0, 500) : 'content-type',
        )
        .header('access-control-max-age', '86400')
        .header('allow', API_METHODS)
        .send();
    });
  }

  // Raw bodies for the API's POST routes (their Content-Type is rewritten in onRequest above).
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => {
    done(null, body);
  });
}

function send(reply: FastifyReply, status: number, body: Buffer): FastifyReply {
  return reply.code(status).header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(body);
}

/** True for the API's paths, with or without a trailing slash. Runs for every response: no regex. */
export function isApiPath(url: string): boolean {
  let end = url.indexOf('?');
  if (end === -1) end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === SLASH) end--;
  return API_PATHS.has(end === 0 ? '/' : url.slice(0, end));
}

const SLASH = 0x2f;
