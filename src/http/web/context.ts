import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { DigestDeps } from '../../digest/deps.js';
import type { RefreshDeps } from '../../feeds/deps.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Store } from '../../store/db.js';
import type { Session as WebSession } from '../../accounts/sessions.js';
import type { ImportThreads } from '../../imports/importThread.js';
import type { MediaSigner } from '../../fetch/mediaKey.js';
import type { MediaLinks } from '../../lib/mediaUrl.js';
import type { InvalidKeyLimiter } from '../invalidKeyLimiter.js';
import type { PasswordHolds } from '../../accounts/passwordHolds.js';
import type { SafeHtml } from './html.js';
import type { Viewer } from './layout.js';
import { tokensMatch } from './session.js';
import { type Locale, localeOf } from '../../i18n/locale.js';
import { acceptedLanguage } from '../../i18n/negotiate.js';

export interface WebDeps {
  store: Store;
  /** Read on every request (tests set baseUrl once they know their port). */
  config: WebConfig;
  /** Failed sign-ins per client address. */
  signInLimiter: InvalidKeyLimiter;
  /** Wrong passwords per account (shared with the wallabag API's password grant). */
  passwordHolds: PasswordHolds;
  now: () => Date;
  /** What building a digest needs ("send me a digest now"); made on first use. */
  digest: () => DigestDeps;
  /** What subscribing to a feed needs (discovery, the first fetch). */
  feeds: () => RefreshDeps;
  /** Where saves are counted; nothing is counted without it. */
  metrics?: Metrics | undefined;
  /** Reads uploaded reading-list exports off the thread that answers requests. */
  imports: ImportThreads;
  /** How the pages write remote images: the media proxy's links (lib/mediaUrl.ts) unless it is off. */
  media: MediaSigner;
}

/**
 * The configuration the web app reads. Without SMTP settings, digests it builds are not emailed; the feed
 * settings default as in config.ts.
 */
export type WebConfig = Pick<Config, 'baseUrl' | 'queueLimit'> &
  Partial<
    Pick<
      Config,
      | 'smtpUrl'
      | 'mailFrom'
      | 'allowPrivateNetworks'
      | 'mediaProxy'
      | 'feedMaxBytes'
      | 'feedBackfillHours'
      | 'maxSubscriptions'
      | 'maxOpmlOutlines'
      | 'inbound'
    >
  >;

/** A failure shown to the reader as an HTML page with this status and message (plain words). */
export class WebError extends Error {
  override name = 'WebError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** Thrown by pages that need a signed-in reader: answered with a redirect to the sign-in page. */
export class SignInRequired extends Error {
  override name = 'SignInRequired';
}

/** Headers of every response of the web app (pages, redirects, error pages, the stylesheet). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; manifest-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const sessions = new WeakMap<FastifyRequest, WebSession>();

const sessionLocales = new WeakMap<WebSession, Locale>();

/** The request's session, and the language its pages are written in (`localeFor`). */
export const rememberSession = (request: FastifyRequest, session: WebSession): void => {
  sessions.set(request, session);
  sessionLocales.set(
    session,
    localeOf(session.language ?? acceptedLanguage(request.headers['accept-language'])),
  );
};

export const sessionOf = (request: FastifyRequest): WebSession | null => sessions.get(request) ?? null;

export function requireSession(request: FastifyRequest): WebSession {
  const session = sessionOf(request);
  if (session === null) throw new SignInRequired('sign in first');
  return session;
}

/**
 * The language a request's pages are written in (docs/languages.md): the signed-in account's own, else the
 * browser's Accept-Language, else the operator's TIDINGS_LANGUAGE. Read after the session is loaded.
 */
export function localeFor(request: FastifyRequest): Locale {
  const session = sessionOf(request);
  if (session !== null) return sessionLocaleOf(session);
  return localeOf(acceptedLanguage(request.headers['accept-language']));
}

const sessionLocaleOf = (session: WebSession): Locale =>
  sessionLocales.get(session) ?? localeOf(session.language);

/** The signed-in reader as the layout shows them, in their language; null when signed out. */
export const viewerOf = (session: WebSession | null): Viewer | null =>
  session === null
    ? null
    : {
        accountName: session.accountName,
        csrfToken: session.csrfToken,
        isAdmin: session.isAdmin,
        locale: sessionLocaleOf(session),
      };

/** A multipart form as the web app reads it: its fields, and its file parts by field name. */
export class MultipartForm {
  constructor(
    readonly fields: URLSearchParams,
    readonly files: ReadonlyMap<string, Buffer>,
  ) {}
}

/** The submitted form's fields (none when the body was not a form). */
export function formOf(request: FastifyRequest): URLSearchParams {
  if (request.body instanceof URLSearchParams) return request.body;
  if (request.body instanceof MultipartForm) return request.body.fields;
  return new URLSearchParams();
}

/** One field of a form; a field given twice counts as missing, as a tampered form would. */
export function field(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/** The synchroniser-token check every POST of a session makes before it changes anything. */
export function checkCsrf(request: FastifyRequest, session: WebSession): void {
  const presented = field(formOf(request), '_csrf');
  if (presented === undefined || !tokensMatch(presented, session.csrfToken)) {
    throw new WebError(403, localeFor(request).t('web.error.expired'));
  }
}

/**
 * The policy of pages that show pictures (the queue's thumbnails): the web app's own, with the images
 * `media` writes (the media proxy's, under the base URL; or, the proxy off, any http(s) address).
 * Everything else stays as strict.
 */
export function remoteImagesCsp(media: Pick<MediaLinks, 'imgSrc'>): string {
  return (
    `default-src 'none'; style-src 'self'; img-src ${media.imgSrc}; manifest-src 'self'; form-action 'self'; ` +
    "frame-ancestors 'none'; base-uri 'none'"
  );
}

/** A page: the security headers, no caching; `headers` (a page's own policy) go over the defaults. */
export function sendPage(
  reply: FastifyReply,
  status: number,
  body: SafeHtml,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  return reply
    .code(status)
    .headers(SECURITY_HEADERS)
    .headers(headers)
    .header('cache-control', 'no-store')
    .header('content-type', 'text/html; charset=utf-8')
    .send(body.value);
}

/** A file of the web app (the stylesheet, the passkey script): its path carries its hash, so cached a year. */
export function sendAsset(reply: FastifyReply, contentType: string, body: Buffer): FastifyReply {
  return reply
    .headers(SECURITY_HEADERS)
    .header('content-type', contentType)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .send(body);
}

/** A redirect after a form (303: the browser follows with a GET). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.headers(SECURITY_HEADERS).header('cache-control', 'no-store').redirect(location, 303);
}

/** A positive integer id from a path parameter, or null (the route then answers 404). */
export function idParam(request: FastifyRequest, name = 'id'): number | null {
  const raw = (request.params as Record<string, string | undefined>)[name];
  if (raw === undefined || !/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : null;
}

/** A query parameter given once, else undefined. */
export function queryParam(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, string | string[] | undefined>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Where a paged list starts (`?start=N`, the index of its first row); 0 for anything else. */
export function startParam(raw: string | undefined): number {
  if (raw === undefined || !/^[0-9]{1,7}$/.test(raw)) return 0;
  return Number(raw);
}

/**
 * A local path to return to after signing in; anything else (another site, a scheme) is refused. Long
 * enough for a shared link (pages/share.ts: an address of 2,048 characters, percent-encoded, and a title).
 */
export function localPath(value: string | undefined): string | null {
  if (value === undefined || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\'))
    return null;
  return /^[\x21-\x7e]{1,8192}$/.test(value) ? value : null;
}

/**
 * Lets a connection stay idle for `ms` while its request is handled, past the server's idle timeout (60 s):
 * for the few requests whose work may take that long (following a feed, importing OPML). Injected requests
 * have no timeouts.
 */
export function allowQuiet(socket: Socket, ms: number): void {
  const timeouts: Partial<Pick<Socket, 'setTimeout'>> = socket;
  timeouts.setTimeout?.(ms);
}
