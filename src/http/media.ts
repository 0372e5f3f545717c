import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MediaProxy, MediaResult } from '../fetch/media.js';
import type { MediaSigner } from '../fetch/mediaKey.js';
import type { NetworkPolicy } from '../fetch/fetch.js';
import { lazy } from '../lib/lazy.js';
import { MEDIA_PATH, verifiedMediaUrl } from '../lib/mediaUrl.js';
import { ApiError } from './errors.js';

/*
 * `GET /media/SIGNATURE/ENCODED`: Tidings' media proxy (docs/privacy.md). Every remote image of a digest (its
 * email, web page and Atom feed), of the reading view and of the queue is written as such a link
 * (lib/mediaUrl.ts), so that opening them asks Tidings, never the image's own server: the reader's address,
 * client and the moment they read are nobody else's business. The link is verified before anything happens
 * (a link Tidings did not sign is the same 404 as one that does not exist: this is no open proxy), then the
 * image is fetched by src/fetch/media.ts (network policy, raster types only, size and time limits, kept in
 * memory a while) and answered with headers that keep it an image: its sniffed type, nosniff, a policy that
 * runs nothing (sandboxed, for an image opened on its own), no Referer, no cookie; cached a day by browsers.
 * Failures are the API's JSON {code, message}: 403 (an address the network policy refuses), 502 (not an
 * image, too large, the server failed), 504 (too slow), 503 with Retry-After (too many at once).
 */

/** Headers of every answer on this route, errors included. */
export const MEDIA_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Mail clients and feed readers on other origins show these images.
  'cross-origin-resource-policy': 'cross-origin',
};

/** How long a browser (or a mail provider's image cache) may keep an image, in seconds: a day. */
export const MEDIA_MAX_AGE = 86_400;

/** The proxy's fetching, loaded by the first image asked for (file-type and lru-cache with it). */
const mediaProxy = lazy(() => import('../fetch/media.js'));

export interface MediaRouteDeps {
  /** The instance's media key (the database's), which verifies each link. */
  signer: MediaSigner;
  /** TIDINGS_ALLOW_PRIVATE_NETWORKS, read when the proxy is first used. */
  policy: () => NetworkPolicy;
  /** For tests: a proxy with its own policy and limits. */
  proxy?: MediaProxy | undefined;
}

export function registerMedia(app: FastifyInstance, deps: MediaRouteDeps): void {
  let proxy = deps.proxy;
  void app.register((scope, _opts, done) => {
    scope.addHook('onSend', (_request, reply, payload, next) => {
      reply.headers(MEDIA_HEADERS);
      next(null, payload);
    });

    scope.get(`${MEDIA_PATH}/:signature/*`, async (request, reply) => {
      const { signature, '*': encoded } = request.params as { signature: string; '*': string };
      const url = verifiedMediaUrl(await deps.signer.keyOf(), signature, encoded);
      if (url === null) throw new ApiError('not_found', 'no such image, or its link is not valid');
      // One link is one image: its signature names it (as a browser asks again after a day).
      const etag = `"${signature}"`;
      const cacheControl = `public, max-age=${MEDIA_MAX_AGE}`;
      if (matches(request, etag)) {
        return reply.code(304).headers({ etag, 'cache-control': cacheControl }).send();
      }
      proxy ??= new (await mediaProxy()).MediaProxy({ policy: deps.policy() });
      const result = await proxy.image(url);
      if (result.kind === 'refused') refuse(request, result);
      return reply
        .code(200)
        .headers({ 'content-type': result.type, 'cache-control': cacheControl, etag })
        .send(result.body);
    });
    done();
  });
}

/** Whether the request's If-None-Match names this ETag (alone, in a list, or weakly). */
function matches(request: FastifyRequest, etag: string): boolean {
  const given = request.headers['if-none-match'];
  if (typeof given !== 'string') return false;
  return given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function refuse(request: FastifyRequest, result: Extract<MediaResult, { kind: 'refused' }>): never {
  request.log.debug({ reason: result.reason, detail: result.message }, 'media proxy refused an image');
  switch (result.reason) {
    case 'private_address':
      throw new ApiError('forbidden', result.message);
    case 'timeout':
      throw new ApiError('gateway_timeout', result.message);
    case 'busy':
      throw new ApiError('unavailable', result.message, { 'retry-after': '5' });
    default:
      throw new ApiError('bad_gateway', result.message);
  }
}
