import { STATUS_CODES } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import type { NetworkPolicy } from './address.js';
import { ACCEPT_ENCODING, readBody } from './body.js';
import { guardedConnector } from './connect.js';
import { type FetchErrorCode, FetchFailure, describeError, formatDuration } from './failure.js';
import { undici } from './undici.js';
import { type ResponseHeaders, header, parseHttpDate, parseMaxAge, parseRetryAfter } from './headers.js';

export type { NetworkPolicy } from './address.js';
export type { FetchErrorCode } from './failure.js';

export const DEFAULT_USER_AGENT = 'Tidings/0.1 (+https://github.com/tidings/tidings)';
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

export interface FetchOptions {
  policy: NetworkPolicy;
  /** The Accept header: what the caller can read; any type by default. */
  accept?: string;
  /** What the messages call what is fetched ("the feed is larger than…"); "resource" by default. */
  noun?: string;
  /** The validators of the last fetch of this URL, sent back as If-None-Match and If-Modified-Since. */
  etag?: string | null;
  lastModified?: string | null;
  /** The most body bytes to read, counted after decompression; 10 MiB by default. */
  maxBytes?: number;
  /** Keep the first maxBytes of a larger body (`truncated` is then set) instead of failing with too_large. */
  truncate?: boolean;
  /** Each TCP and TLS handshake; 10 s by default. */
  connectTimeoutMs?: number;
  /** The whole fetch, every redirect and the body included; 30 s by default. */
  requestTimeoutMs?: number;
  userAgent?: string;
  /** Ends the fetch early when aborted (the caller's own deadline): it fails with code 'aborted'. */
  signal?: AbortSignal;
  /**
   * A POST with this body instead of a GET (an RFC 8058 one-click unsubscribe). A 307 or 308 repeats the
   * POST at the new address; 301, 302 and 303 are followed with a GET, as browsers do.
   */
  post?: { contentType: string; body: string };
  /** Certificate authorities to trust instead of the system's (PEM): a test's own loopback server. */
  ca?: string;
}

/** What the server said about caching and waiting, for the scheduler to plan the next poll. */
export interface CacheHints {
  etag: string | null;
  lastModified: string | null;
  /** Cache-Control max-age, in seconds. */
  cacheControlMaxAge: number | null;
  /** Expires; null when absent or not a valid HTTP date. */
  expires: Date | null;
  /** Retry-After, in seconds from the response. */
  retryAfter: number | null;
}

/** Where the answer came from. */
export interface Destination {
  /** The URL that answered, after any redirects. */
  finalUrl: string;
  /** Set when the request was redirected and every redirect was permanent (301, 308): the URL to keep from now on. */
  permanentUrl: string | null;
}

export interface FetchOk extends CacheHints, Destination {
  kind: 'ok';
  status: number;
  body: Buffer;
  contentType: string | null;
  /** True when the body was cut at maxBytes (only with the `truncate` option). */
  truncated: boolean;
}

/** 304: unchanged since the validators were given; no body was read. */
export interface FetchNotModified extends CacheHints, Destination {
  kind: 'not_modified';
}

/** 410: removed for good; what that means is the caller's to say (a feed stops being polled). */
export interface FetchGone extends Destination {
  kind: 'gone';
  message: string;
}

export interface FetchError {
  kind: 'error';
  code: FetchErrorCode;
  /** Plain words for a person. */
  message: string;
  /** The HTTP status, for http_status. */
  status?: number;
  /** Seconds to wait, when a 429 or 503 said so. */
  retryAfter?: number;
}

export type FetchResult = FetchOk | FetchNotModified | FetchGone | FetchError;

interface Context {
  agent: Agent;
  post: FetchOptions['post'];
  /** Aborted at the whole-request deadline, or when the caller's signal is. */
  deadline: AbortSignal;
  caller: AbortSignal | undefined;
  requestHeaders: Record<string, string>;
  maxBytes: number;
  truncate: boolean;
  noun: string;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/** One request of the chain: where it goes, and the URL to store if it answers. */
interface Hop {
  url: URL;
  permanentUrl: string | null;
  /** This request is the caller's POST (the first, and those a 307 or 308 repeats). */
  post: boolean;
}

interface Redirect {
  kind: 'redirect';
  status: number;
  location: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const PERMANENT_REDIRECTS = new Set([301, 308]);

/**
 * Fetches a URL with a GET (or the caller's POST). Never throws for network or HTTP trouble: every outcome is a value, with stable codes for
 * the failures. Every connection, the first and each redirect's, goes only to an address the policy allows,
 * checked at connect time (see guardedConnector).
 */
export async function fetchUrl(url: string, options: FetchOptions): Promise<FetchResult> {
  const noun = options.noun ?? 'resource';
  const start = requestUrl(url, noun);
  if (start instanceof FetchFailure) return failed(start.code, start.message);
  if (options.signal?.aborted === true) return cancelled(start);
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const { Agent, buildConnector } = await undici();
  // One agent per fetch: its connections are checked under this fetch's policy and end with it.
  const connect = buildConnector({
    timeout: connectTimeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const agent = new Agent({ connect: guardedConnector(options.policy, connect) });
  // Not AbortSignal.timeout: its timer would hold the process for the full duration after the fetch is done.
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort();
  }, requestTimeoutMs);
  const abort = (): void => {
    deadline.abort();
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  const context: Context = {
    agent,
    post: options.post,
    deadline: deadline.signal,
    caller: options.signal,
    requestHeaders: requestHeaders(options),
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    truncate: options.truncate === true,
    noun,
    connectTimeoutMs,
    requestTimeoutMs,
  };
  try {
    return await followRedirects(start, context);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    // Also ends the rest of any body left unread, such as an error page's.
    await agent.destroy();
  }
}

function requestHeaders(options: FetchOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
    accept: options.accept ?? '*/*',
    'accept-encoding': ACCEPT_ENCODING,
  };
  // Sent on every hop: the validators came from the end of this same chain the last time it was fetched.
  if (options.etag != null) headers['if-none-match'] = options.etag;
  if (options.lastModified != null) headers['if-modified-since'] = options.lastModified;
  return headers;
}

async function followRedirects(start: URL, context: Context): Promise<FetchResult> {
  let hop: Hop = { url: start, permanentUrl: null, post: context.post !== undefined };
  let allPermanent = true;
  for (let redirects = 0; ; redirects++) {
    const outcome = await fetchHop(hop, context);
    if (outcome.kind !== 'redirect') return outcome;
    if (redirects === MAX_REDIRECTS) {
      return failed('too_many_redirects', `${start.host} redirects more than ${MAX_REDIRECTS} times`);
    }
    const next = requestUrl(outcome.location, context.noun, hop.url);
    if (next instanceof FetchFailure) {
      return failed('bad_url', `${hop.url.host} redirects to an address Tidings refuses: ${next.message}`);
    }
    allPermanent &&= PERMANENT_REDIRECTS.has(outcome.status);
    const post = hop.post && (outcome.status === 307 || outcome.status === 308);
    hop = { url: next, permanentUrl: allPermanent ? next.href : null, post };
  }
}

/** One request, answered as a result or a redirect to follow; errors become failures here. */
async function fetchHop(hop: Hop, context: Context): Promise<FetchResult | Redirect> {
  try {
    const { request } = await undici();
    const post = hop.post ? context.post : undefined;
    const response = await request(hop.url, {
      dispatcher: context.agent,
      method: post === undefined ? 'GET' : 'POST',
      headers:
        post === undefined
          ? context.requestHeaders
          : { ...context.requestHeaders, 'content-type': post.contentType },
      ...(post === undefined ? {} : { body: post.body }),
      signal: context.deadline,
    });
    return await interpret(response, hop, context);
  } catch (err) {
    // The deadline comes first: an aborted request surfaces as whatever error the abort happened to cause.
    if (context.caller?.aborted === true) return cancelled(hop.url);
    if (context.deadline.aborted) {
      const limit = formatDuration(context.requestTimeoutMs);
      return failed('timeout', `fetching from ${hop.url.host} took longer than ${limit}`);
    }
    const failure = describeError(err, hop.url, context.connectTimeoutMs);
    return failed(failure.code, failure.message);
  }
}

async function interpret(
  { statusCode: status, headers, body }: Dispatcher.ResponseData,
  hop: Hop,
  context: Context,
): Promise<FetchResult | Redirect> {
  const destination: Destination = { finalUrl: hop.url.href, permanentUrl: hop.permanentUrl };
  if (REDIRECT_STATUSES.has(status)) {
    const location = header(headers, 'location');
    if (location === null) return statusFailure(status, headers, hop.url, 'without saying where to');
    await body.dump(); // read off (a little), so a redirect to the same host can reuse the connection
    return { kind: 'redirect', status, location };
  }
  if (status === 304) return { kind: 'not_modified', ...destination, ...cacheHints(headers) };
  if (status === 410) {
    return {
      kind: 'gone',
      ...destination,
      message: `${hop.url.host} says the ${context.noun} is gone for good (410 Gone)`,
    };
  }
  if (status < 200 || status > 299) return statusFailure(status, headers, hop.url);
  const content = await readBody(
    body,
    {
      contentEncoding: header(headers, 'content-encoding'),
      contentLength: header(headers, 'content-length'),
    },
    { maxBytes: context.maxBytes, signal: context.deadline, noun: context.noun, truncate: context.truncate },
  );
  return {
    kind: 'ok',
    status,
    ...destination,
    body: content,
    truncated: context.truncate && content.length >= context.maxBytes,
    contentType: header(headers, 'content-type'),
    ...cacheHints(headers),
  };
}

function cacheHints(headers: ResponseHeaders): CacheHints {
  return {
    etag: header(headers, 'etag'),
    lastModified: header(headers, 'last-modified'),
    cacheControlMaxAge: parseMaxAge(header(headers, 'cache-control')),
    expires: parseHttpDate(header(headers, 'expires')),
    retryAfter: parseRetryAfter(header(headers, 'retry-after'), new Date()),
  };
}

/** An HTTP status that is not an answer; 429 and 503 carry how long the server asks to wait. */
function statusFailure(status: number, headers: ResponseHeaders, url: URL, detail?: string): FetchError {
  const waitable = status === 429 || status === 503;
  const retryAfter = waitable ? parseRetryAfter(header(headers, 'retry-after'), new Date()) : null;
  const words = [`${url.host} answered ${status}`, STATUS_CODES[status], detail].filter(Boolean).join(' ');
  return {
    kind: 'error',
    code: 'http_status',
    message: retryAfter === null ? words : `${words}, asking to wait ${retryAfter} s`,
    status,
    ...(retryAfter === null ? {} : { retryAfter }),
  };
}

/** A URL the fetcher will request: absolute (or relative to `base`), http or https, with no credentials. */
function requestUrl(raw: string, noun: string, base?: URL): URL | FetchFailure {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return new FetchFailure('bad_url', `"${raw.slice(0, 200)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new FetchFailure('bad_url', `${url.href.slice(0, 200)} is not an http or https URL`);
  }
  if (url.username !== '' || url.password !== '') {
    return new FetchFailure('bad_url', `${noun} URLs with a user name or password are not supported`);
  }
  return url;
}

function cancelled(url: URL): FetchError {
  return failed('aborted', `the fetch from ${url.host} was cancelled`);
}

function failed(code: FetchErrorCode, message: string): FetchError {
  return { kind: 'error', code, message };
}
