import http from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { InboundConfig, TrustProxy } from '../config.js';
import { ApiError } from './errors.js';
import type { EpubBuilds } from '../digest/epub/builds.js';
import { epubImageSource } from '../digest/epub/images.js';
import type { MediaProxy } from '../fetch/media.js';
import { MediaSigner } from '../fetch/mediaKey.js';
import type { Metrics } from '../lib/metrics.js';
import type { Store } from '../store/db.js';
import { API_METHODS, isApiPath, registerApi } from './api.js';
import { registerDigestRoutes } from './digests.js';
import { fromKind, sendErrorResponse, toErrorResponse } from './errors.js';
import { registerHealth } from './health.js';
import { registerInbound } from './inbound.js';
import { registerMedia } from './media.js';
import { trustProxyOption } from './clientAddress.js';
import { InvalidKeyLimiter } from './invalidKeyLimiter.js';
import { RequestLogController } from './logging.js';
import { registerOpenApi } from './openapi.js';
import { QueueCache } from './queueCache.js';
import type { StartingServer } from './starting.js';
import type { WebConfig } from './web/context.js';
import type { ImportThreads } from '../imports/importThread.js';
import { SIGN_IN_FAILURES, SIGN_IN_WINDOW_MS, registerWeb, wantsPage } from './web/index.js';
import { registerOpds } from './opds.js';
import { registerWallabag } from './wallabag/index.js';
import { PasswordHolds } from '../accounts/passwordHolds.js';
import { VerifiedPasswords } from '../accounts/verifiedPasswords.js';

export const BODY_LIMIT = 64 * 1024;

/**
 * How long a request's headers and body may take to arrive; Node checks every 30 s, so one that has not is
 * ended between 60 and 90 s, with a bare 400. Twice the reading-list upload's own limit
 * (IMPORT_THREAD_LIMITS.uploadMs, 30 s), which that route enforces itself so that a late upload is
 * answered with its page (issue 33 J): at 30 s this timeout raced it and usually won.
 */
export const REQUEST_TIMEOUT_MS = 60_000;
const API_METHOD_SET = new Set(API_METHODS.split(', '));

export interface ServerDeps {
  /** The web app also reads the SMTP and feed settings when given (see WebConfig); inbound mail its own. */
  config: { trustProxy: TrustProxy | true; inbound?: InboundConfig | undefined } & WebConfig;
  store: Store;
  logger: Logger;
  /** For tests: a limiter with an injected clock. */
  limiter?: InvalidKeyLimiter;
  /** For tests: the web app's sign-in limiter. */
  signInLimiter?: InvalidKeyLimiter;
  /** For tests: the web app's clock. */
  now?: () => Date;
  /** For tests: the threads that read uploaded reading-list exports. */
  importThreads?: ImportThreads | undefined;
  /** Where requests, saves and the web app's work are counted (TIDINGS_METRICS); nothing without it. */
  metrics?: Metrics | undefined;
  /** For tests: where EPUBs are made (digest/epub/builds.ts); the process's builds otherwise. */
  epubBuilds?: EpubBuilds;
  /** For tests: the media proxy's fetching, with a network policy and limits of their own. */
  mediaProxy?: MediaProxy;
  /** An HTTP server already listening (`serve`: http/starting.ts), taken over instead of a new one. */
  serverFactory?: StartingServer['factory'] | undefined;
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const logger: FastifyBaseLogger = deps.logger;
  // The web's 404 page, once the web app is registered below (frameworkErrors runs only for requests).
  const web: { notFound?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> } = {};
  const app = Fastify({
    loggerInstance: logger,
    logController: new RequestLogController(logger),
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionTimeout: 60_000,
    return503OnClosing: false,
    ...(deps.serverFactory === undefined ? {} : { serverFactory: deps.serverFactory }),
    // Fastify's own early errors (a path with broken percent-encoding, a path segment over
    // maxParamLength…) would echo the URL, key included. A browser gets the web's "no page here".
    frameworkErrors: (err, request, reply) => {
      const badPath = err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      if (badPath && wantsPage(request) && web.notFound !== undefined) {
        void web.notFound(request, reply);
        return;
      }
      const bad = badPath ? fromKind('bad_request', 'the request path is not valid') : null;
      const res = bad ?? toErrorResponse(err, request.log);
      void sendErrorResponse(reply, res);
    },
    // Malformed HTTP (a bad method, oversized headers…) still gets a JSON {code, message}.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const tooLarge = 'code' in err && err.code === 'HPE_HEADER_OVERFLOW';
      const { status, body } = tooLarge
        ? fromKind('request_too_large', 'the request line or headers are too large')
        : fromKind('bad_request', 'malformed HTTP request');
      const json = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
          `Connection: close\r\n\r\n${json}`,
      );
    },
  });

  // Once closing, tell keep-alive clients so: the connection then ends with this response instead of
  // holding the shutdown open until its timeout.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  const metrics = deps.metrics;
  if (metrics !== undefined) {
    // By the route's pattern (/items/:id), never the URL: it may carry a key, and ids would grow the
    // series without end. Requests no route matched are one series.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.httpRequest({
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        seconds: reply.elapsedTime / 1000,
      });
      done();
    });
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    if (isApiPath(request.url)) {
      reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'Retry-After');
    }
    done(null, payload);
  });

  app.setErrorHandler((err, request, reply) => {
    return sendErrorResponse(reply, toErrorResponse(err, request.log));
  });

  // How images are written (the media proxy's signed links unless TIDINGS_MEDIA_PROXY=off), read per use.
  const media = new MediaSigner(deps.store.db, () => ({
    baseUrl: deps.config.baseUrl,
    proxy: deps.config.mediaProxy ?? true,
  }));
  // One count of failed sign-ins for the web's form, the OPDS catalogue's Basic sign-in and the wallabag
  // API's password grant: per address, per account.
  const now = deps.now ?? (() => new Date());
  const signInLimiter = deps.signInLimiter ?? new InvalidKeyLimiter(SIGN_IN_FAILURES, SIGN_IN_WINDOW_MS);
  const passwordHolds = new PasswordHolds(() => now().getTime());
  const webPages = registerWeb(app, {
    store: deps.store,
    config: deps.config,
    media,
    logger: deps.logger,
    metrics,
    signInLimiter,
    passwordHolds,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    importThreads: deps.importThreads,
  });

  web.notFound = webPages.notFound;

  // The API's paths answer other methods 405 before any body is read: a body that is too large, or not
  // of its Content-Type, or a QUERY without one, must not turn the 405 into a 400 or a 413.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!API_METHOD_SET.has(request.method) && isApiPath(request.url)) {
      done(
        new ApiError('method_not_allowed', `${request.method} is not allowed here; use GET or POST`, {
          allow: API_METHODS,
        }),
      );
      return;
    }
    done();
  });
  routeConnect(app);

  app.setNotFoundHandler((request, reply) => {
    if (wantsPage(request)) return webPages.notFound(request, reply);
    throw new ApiError('not_found', `nothing at ${request.method} ${request.url.split('?')[0] ?? ''}`);
  });

  registerHealth(app, deps.store);
  registerOpenApi(app);
  registerApi(app, {
    store: deps.store,
    cache: new QueueCache(),
    limiter: deps.limiter ?? new InvalidKeyLimiter(),
    queueLimit: deps.config.queueLimit,
    metrics,
  });
  const policy = () => ({ allowPrivate: deps.config.allowPrivateNetworks ?? false });
  // EPUBs embed their images, fetched as the media proxy fetches (with the test's proxy in tests).
  const epubImages = epubImageSource(policy, deps.mediaProxy);
  registerWallabag(app, {
    store: deps.store,
    baseUrl: deps.config.baseUrl,
    queueLimit: deps.config.queueLimit,
    metrics,
    signInLimiter,
    passwordHolds,
    now,
    epubImages,
    epubBuilds: deps.epubBuilds,
  });
  registerInbound(app, {
    store: deps.store,
    logger: deps.logger,
    config: deps.config,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  registerMedia(app, { signer: media, policy, proxy: deps.mediaProxy });
  registerDigestRoutes(app, {
    store: deps.store,
    baseUrl: deps.config.baseUrl,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    media,
    browserRefusal: webPages.digestLinkRefused,
    browserError: webPages.errorPage,
    ...(deps.epubBuilds === undefined ? {} : { epubBuilds: deps.epubBuilds }),
    epubImages,
  });
  registerOpds(app, {
    store: deps.store,
    baseUrl: () => deps.config.baseUrl,
    now,
    signInLimiter,
    passwordHolds,
    verifiedPasswords: new VerifiedPasswords(() => now().getTime()),
    media,
    epubBuilds: deps.epubBuilds,
    epubImages,
  });
  return app;
}

/**
 * Node gives a CONNECT request to the server's 'connect' listeners, and without one closes the connection
 * without a byte. Every method Node parses otherwise reaches Fastify (an Upgrade header too, as there is
 * no 'upgrade' listener), so CONNECT is routed like them, on a response of its own over its socket, which
 * is closed once answered: the API's 405, or the 404 of any other path.
 */
function routeConnect(app: FastifyInstance): void {
  app.server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    if (!(socket instanceof Socket)) {
      socket.destroy();
      return;
    }
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on('finish', () => {
      res.detachSocket(socket);
      socket.end();
    });
    app.routing(req, res);
  });
}
