import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { DEFAULT_MAX_OPML_OUTLINES, DEFAULT_MAX_SUBSCRIPTIONS } from '../../config.js';
import { DIGEST_LEASE_MS, type DigestDeps } from '../../digest/deps.js';
import { createMailer } from '../../digest/mail.js';
import { ImportThreads } from '../../imports/importThread.js';
import type { MediaSigner } from '../../fetch/mediaKey.js';
import type { Store } from '../../store/db.js';
import { toErrorResponse } from '../errors.js';
import { InvalidKeyLimiter } from '../invalidKeyLimiter.js';
import {
  SignInRequired,
  type WebDeps,
  WebError,
  rememberSession,
  sendAsset,
  sendPage,
  seeOther,
  sessionOf,
  viewerOf,
  localeFor,
} from './context.js';
import { sentence } from './errors.js';
import { errorPage } from './layout.js';
import { digestLinkPage } from './pages/digestLink.js';
import { registerPasskeyScript } from './passkeyScript.js';
import { registerCopyScript } from './copyScript.js';
import { registerNewsletters } from './pages/newsletters.js';
import { registerAccounts } from './pages/accounts.js';
import { registerDigestActions } from './pages/digestActions.js';
import { registerDigests } from './pages/digests.js';
import { registerFeeds } from './pages/feeds.js';
import { registerInvite } from './pages/invite.js';
import { registerItem } from './pages/item.js';
import { registerKeys } from './pages/keys.js';
import { registerApps } from './pages/apps.js';
import { registerOpml } from './pages/opml.js';
import { registerProfile } from './pages/profile.js';
import { registerQueue } from './pages/queue.js';
import { registerReadingList } from './pages/readingList.js';
import { registerSave } from './pages/save.js';
import { registerSearch } from './pages/search.js';
import { registerSettings } from './pages/settings.js';
import { registerShare } from './pages/share.js';
import { registerSignIn } from './pages/signIn.js';
import { registerSignInSettings } from './pages/signInSettings.js';
import { registerOpdsSettings } from './pages/opdsSettings.js';
import { registerUnsubscribe } from './pages/unsubscribe.js';
import { findSession } from '../../accounts/sessions.js';
import { PasswordHolds } from '../../accounts/passwordHolds.js';
import type { Metrics } from '../../lib/metrics.js';
import { clearCookie, isSecure, readCookie, sessionCookieName, setCookie } from './session.js';
import { registerAppFiles } from './manifest.js';
import { STYLESHEET, STYLESHEET_PATH } from './stylesheet.js';

export interface WebOptions {
  store: Store;
  config: WebDeps['config'];
  logger: Logger;
  /** For tests: a limiter with an injected clock. Default: 10 failed sign-ins per address per 15 minutes. */
  signInLimiter?: InvalidKeyLimiter;
  /** Wrong passwords per account; the server shares one with the wallabag API. */
  passwordHolds?: PasswordHolds;
  now?: () => Date;
  /** Where saves, subscriptions' first fetches and digests built here are counted. */
  metrics?: Metrics | undefined;
  /** For tests: the threads reading uploaded reading-list exports (one at a time by default). */
  importThreads?: ImportThreads | undefined;
  /** How remote images are written (the media proxy's links unless it is off). */
  media: MediaSigner;
}

/** What the server's own routes answer a browser with: the 404 page, a digest link that did not open. */
export interface WebFallbacks {
  notFound: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  /** `GET /digests/:id` without a valid token, from a browser: see pages/digestLink.ts. */
  digestLinkRefused: (
    request: FastifyRequest,
    reply: FastifyReply,
    digestId: number | null,
    page: number | null,
  ) => Promise<FastifyReply>;
  /** An error of one of the server's own routes as a page (the EPUB download that could not be made). */
  errorPage: (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    message: string,
  ) => Promise<FastifyReply>;
}

export const SIGN_IN_FAILURES = 10;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

/**
 * The web app: server-rendered pages without JavaScript, in a Fastify scope of their own, so that their
 * form parser, session hook and HTML error pages never touch the API (which reads raw bodies and answers
 * JSON). Returns what the server's own handlers need to answer a browser with a page.
 */
export function registerWeb(app: FastifyInstance, options: WebOptions): WebFallbacks {
  const now = options.now ?? (() => new Date());
  let digest: DigestDeps | undefined;
  const deps: WebDeps = {
    store: options.store,
    config: options.config,
    metrics: options.metrics,
    signInLimiter: options.signInLimiter ?? new InvalidKeyLimiter(SIGN_IN_FAILURES, SIGN_IN_WINDOW_MS),
    passwordHolds: options.passwordHolds ?? new PasswordHolds(() => now().getTime()),
    now,
    imports: options.importThreads ?? new ImportThreads(),
    media: options.media,
    feeds: () => {
      const { config } = options;
      return {
        store: options.store,
        log: options.logger,
        fetch: {
          policy: { allowPrivate: config.allowPrivateNetworks ?? false },
          maxBytes: config.feedMaxBytes ?? 10 * 1024 * 1024,
        },
        backfillHours: config.feedBackfillHours ?? 24,
        queueLimit: config.queueLimit,
        maxSubscriptions: config.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS,
        maxOpmlOutlines: config.maxOpmlOutlines ?? DEFAULT_MAX_OPML_OUTLINES,
        now,
        metrics: options.metrics,
      };
    },
    digest: () => {
      if (digest !== undefined) return digest;
      const { config } = options;
      digest = {
        store: options.store,
        log: options.logger,
        now,
        // Only to know, when building, whether the digest is to be emailed: the digest worker sends it.
        mailer: createMailer({ smtpUrl: config.smtpUrl ?? null, mailFrom: config.mailFrom ?? null }),
        mailFrom: config.mailFrom ?? null,
        baseUrl: config.baseUrl,
        leaseMs: DIGEST_LEASE_MS,
        random: Math.random,
        metrics: options.metrics,
        media: options.media,
      };
      return digest;
    },
  };
  app.addHook('onClose', (_instance, done) => {
    digest?.mailer?.close();
    done();
  });

  const stylesheet = Buffer.from(STYLESHEET);
  app.get(STYLESHEET_PATH, (_request, reply) => sendAsset(reply, 'text/css; charset=utf-8', stylesheet));

  registerPasskeyScript(app);
  registerCopyScript(app);

  registerAppFiles(app);

  async function loadSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const secure = isSecure(deps.config.baseUrl);
    const name = sessionCookieName(secure);
    const token = readCookie(request, name);
    if (token === undefined) return;
    const found = await findSession(deps.store, token, deps.now());
    if (found === null) {
      clearCookie(reply, secure, name); // ended, revoked or unknown: stop sending it
      return;
    }
    rememberSession(request, found.session);
    if (found.renewed) {
      const maxAge = Math.floor((Date.parse(found.session.expiresAt) - deps.now().getTime()) / 1000);
      setCookie(reply, secure, name, token, maxAge);
    }
  }

  void app.register((scope, _opts, done) => {
    // Forms are the only bodies the pages read; the API's routes live outside this scope.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, parsed) => {
        parsed(null, new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8')));
      },
    );
    scope.addHook('onRequest', loadSession);

    scope.setErrorHandler((err, request, reply) => {
      if (err instanceof SignInRequired) {
        if (request.method === 'GET' || request.method === 'HEAD') {
          return seeOther(reply, `/sign-in?next=${encodeURIComponent(request.url)}`);
        }
        return seeOther(reply, '/sign-in?notice=ended');
      }
      const viewer = viewerOf(sessionOf(request));
      if (err instanceof WebError) {
        return sendPage(
          reply.headers(err.headers),
          err.status,
          errorPage(err.status, err.message, viewer, localeFor(request)),
        );
      }
      const res = toErrorResponse(err, request.log); // logs what is unexpected
      const locale = localeFor(request);
      const message =
        res.status === 503
          ? locale.t('web.error.database')
          : res.status >= 500
            ? locale.t('web.error.server')
            : sentence(res.body.message);
      return sendPage(reply.headers(res.headers), res.status, errorPage(res.status, message, viewer, locale));
    });

    scope.get('/', (request, reply) => {
      if (sessionOf(request) !== null) return seeOther(reply, '/queue');
      return reply.redirect('/sign-in', 303);
    });
    registerSignIn(scope, deps);
    registerQueue(scope, deps);
    registerReadingList(scope, deps);
    registerFeeds(scope, deps);
    registerNewsletters(scope, deps);
    registerOpml(scope, deps);
    registerDigests(scope, deps);
    registerKeys(scope, deps);
    registerApps(scope, deps);
    registerSave(scope, deps);
    registerSettings(scope, deps);
    registerSignInSettings(scope, deps);
    registerOpdsSettings(scope, deps);
    registerItem(scope, deps);
    registerAccounts(scope, deps);
    registerInvite(scope, deps);
    registerProfile(scope, deps);
    registerSearch(scope, deps);
    registerUnsubscribe(scope, deps);
    registerDigestActions(scope, deps);
    registerShare(scope);
    done();
  });

  return {
    notFound: async (request, reply) => {
      await loadSession(request, reply);
      const locale = localeFor(request);
      const message = locale.t('web.error.noPage');
      return sendPage(reply, 404, errorPage(404, message, viewerOf(sessionOf(request)), locale));
    },
    digestLinkRefused: async (request, reply, digestId, page) => {
      await loadSession(request, reply);
      return digestLinkPage(deps, request, reply, digestId, page);
    },
    errorPage: async (request, reply, status, message) => {
      await loadSession(request, reply);
      return sendPage(
        reply,
        status,
        errorPage(status, message, viewerOf(sessionOf(request)), localeFor(request)),
      );
    },
  };
}

/**
 * A browser asking for a page outside the API's paths (anything under /api stays the API's, JSON): it
 * gets an HTML error page.
 */
export function wantsPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return (
    typeof accept === 'string' &&
    accept.includes('text/html') &&
    !request.url.toLowerCase().startsWith('/api')
  );
}
