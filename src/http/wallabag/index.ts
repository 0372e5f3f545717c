import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type GrantRefusal,
  type TokenGrant,
  authenticateAccessToken,
  grantWithPassword,
  grantWithRefresh,
} from '../../accounts/apiClients.js';
import type { AccountId } from '../../accounts/authorize.js';
import type { PasswordHolds } from '../../accounts/passwordHolds.js';
import { accountOf } from '../../accounts/profile.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Store } from '../../store/db.js';
import type { InvalidKeyLimiter } from '../invalidKeyLimiter.js';
import { readWallabagBody } from './body.js';
import { registerEntries } from './entries.js';
import { wallabagDate } from './entryJson.js';
import { OAuthError, WallabagError, sendWallabagError } from './errors.js';

/*
 * The wallabag-compatible API (issue 35; docs/apps.md): OAuth's token endpoint and wallabag's /api/…
 * paths over the account's reading list, beside the seed API (http/api.ts, whose paths and answers do not
 * change). A Fastify scope of its own: bodies read raw and parsed here (JSON or form, whatever the
 * Content-Type claims on a GET or a DELETE), errors in wallabag's shapes, CORS open (the apps and the
 * browser extension send a bearer token, never a cookie).
 */

/** The wallabag version the API answers as (what its clients check features against). */
export const WALLABAG_VERSION = '2.6.10';

import type { EpubBuilds } from '../../digest/epub/builds.js';
import type { EpubImageSource } from '../../digest/epub/images.js';

export interface WallabagDeps {
  store: Store;
  baseUrl: string;
  queueLimit: number;
  metrics?: Metrics | undefined;
  /** The web's sign-in limits: a wrong password here counts as one there (one per address, and holds). */
  signInLimiter: InvalidKeyLimiter;
  passwordHolds: PasswordHolds;
  now: () => Date;
  /** `export.epub`: where its images are fetched (as the media proxy fetches) and where it is made. */
  epubImages?: EpubImageSource | undefined;
  epubBuilds?: EpubBuilds | undefined;
}

export interface WallabagAuth {
  accountId: AccountId;
}

/** The account a request's bearer token (or `access_token` parameter) acts for; throws 401 otherwise. */
export type Authorise = (request: FastifyRequest) => Promise<WallabagAuth>;

/** The paths under /api that are wallabag's (the rest of /api is the seed API's). */
const WALLABAG_PATHS = ['version', 'info', 'user', 'entries', 'tags', 'annotations'].map((p) => `/api/${p}*`);

export function registerWallabag(app: FastifyInstance, deps: WallabagDeps): void {
  void app.register((scope, _opts, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, next) => next(null, body));
    scope.setErrorHandler((err, request, reply) => sendWallabagError(reply, err, request.log));
    scope.addHook('onSend', (_request, reply, payload, next) => {
      reply.header('access-control-allow-origin', '*');
      next(null, payload);
    });
    scope.options('/oauth/v2/token', preflight);
    // Only wallabag's own paths: OPTIONS on the seed API's (/api, /api/v1/…) keeps its answers and shape.
    for (const path of WALLABAG_PATHS) scope.options(path, preflight);

    const authorise: Authorise = async (request) => {
      const header = request.headers.authorization;
      const query = request.query as Record<string, unknown>;
      const token =
        typeof header === 'string' && /^bearer\s/i.test(header)
          ? header.slice(7).trim()
          : typeof query.access_token === 'string'
            ? query.access_token
            : null;
      if (token === null) {
        throw new OAuthError(401, 'access_denied', 'OAuth2 authentication required', {
          'www-authenticate':
            'Bearer realm="Service", error="access_denied", error_description="OAuth2 authentication required"',
        });
      }
      const auth = await authenticateAccessToken(deps.store, token, deps.now());
      if (auth === null) {
        throw new OAuthError(401, 'invalid_grant', 'The access token provided is invalid.', {
          'www-authenticate':
            'Bearer realm="Service", error="invalid_grant", error_description="The access token provided is invalid."',
        });
      }
      return { accountId: auth.accountId };
    };

    registerToken(scope, deps);
    registerMeta(scope, deps, authorise);
    registerEntries(scope, { ...deps, authorise });
    done();
  });
}

function preflight(request: FastifyRequest, reply: FastifyReply): void {
  const requested = request.headers['access-control-request-headers'];
  void reply
    .code(204)
    .header('access-control-allow-methods', 'GET, POST, PATCH, PUT, DELETE')
    .header(
      'access-control-allow-headers',
      typeof requested === 'string' ? requested.slice(0, 500) : 'authorization, content-type',
    )
    .header('access-control-max-age', '86400')
    .send();
}

/** POST /oauth/v2/token: the password and refresh_token grants. */
function registerToken(scope: FastifyInstance, deps: WallabagDeps): void {
  scope.post('/oauth/v2/token', async (request, reply) => {
    const fields = readWallabagBody(request.headers['content-type'], request.body);
    const field = (name: string): string => fields.get(name) ?? '';
    const grantType = field('grant_type');
    if (grantType !== 'password' && grantType !== 'refresh_token') {
      throw new OAuthError(
        400,
        grantType === '' ? 'invalid_request' : 'unsupported_grant_type',
        grantType === ''
          ? 'Invalid grant_type parameter or parameter missing'
          : 'Invalid grant_type parameter',
      );
    }
    // Counted against the address before anything is checked, as a web sign-in is; given back on success.
    const wait = deps.signInLimiter.reserve(request.ip);
    if (wait > 0) {
      throw new OAuthError(429, 'temporarily_unavailable', `Too many failed sign-ins; retry in ${wait} s`, {
        'retry-after': String(wait),
      });
    }
    const client = { clientId: field('client_id'), clientSecret: field('client_secret') };
    const result: TokenGrant | GrantRefusal =
      grantType === 'password'
        ? await grantWithPassword(
            deps.store,
            { ...client, username: field('username'), password: field('password') },
            deps.now(),
            deps.passwordHolds,
          )
        : await grantWithRefresh(deps.store, { ...client, refreshToken: field('refresh_token') }, deps.now());
    if ('error' in result) {
      if (result.error === 'held') {
        deps.signInLimiter.giveBack(request.ip); // no password was checked
        throw new OAuthError(
          429,
          'temporarily_unavailable',
          `Password sign-in of this account is paused; retry in ${result.seconds} s`,
          {
            'retry-after': String(result.seconds),
          },
        );
      }
      throw new OAuthError(result.error === 'invalid_client' ? 401 : 400, result.error, result.description);
    }
    deps.signInLimiter.giveBack(request.ip);
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send({
      access_token: result.accessToken,
      expires_in: result.expiresIn,
      token_type: 'bearer',
      scope: null,
      refresh_token: result.refreshToken,
    });
  });
}

/** /api/version, /api/info (no token) and /api/user, each with or without ".json". */
function registerMeta(scope: FastifyInstance, deps: WallabagDeps, authorise: Authorise): void {
  for (const path of ['/api/version', '/api/version.json']) {
    scope.get(path, (_request, reply) => reply.send(JSON.stringify(WALLABAG_VERSION)));
  }
  for (const path of ['/api/info', '/api/info.json']) {
    scope.get(path, (_request, reply) =>
      reply.send({ appname: 'wallabag', version: WALLABAG_VERSION, allowed_registration: false }),
    );
  }
  for (const path of ['/api/user', '/api/user.json']) {
    scope.get(path, async (request, reply) => {
      const { accountId } = await authorise(request);
      const account = await accountOf(deps.store, accountId);
      if (account === null) throw new WallabagError(404, 'User not found');
      return reply.send({
        id: account.id,
        username: account.name,
        email: account.email,
        name: account.name,
        created_at: wallabagDate(account.created_at),
        updated_at: wallabagDate(account.created_at),
      });
    });
  }
}
