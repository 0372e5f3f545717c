import { LRUCache } from 'lru-cache';
import { KeyedSemaphore, Semaphore } from '../lib/semaphore.js';
import { hostOf } from '../lib/url.js';
import { type FetchResult, type NetworkPolicy, fetchUrl } from './fetch.js';
import { MEDIA_ACCEPT, declaredRefusal, sniffedImageType } from './mediaTypes.js';

/*
 * The media proxy's fetching (docs/privacy.md): an image a reader's browser or mail client asks Tidings for
 * (src/http/media.ts, once its signed link is verified) is fetched here, through the one guarded client
 * (fetch.ts: the network policy checked at every connection and redirect), at most MEDIA_LIMITS.maxBytes,
 * within MEDIA_LIMITS.timeoutMs from the request, and served only when its bytes are a raster image
 * (mediaTypes.ts). What was fetched is kept in memory, bounded in bytes, for a while: one image that a
 * digest shows to a thousand readers is fetched once an hour, and a failure is remembered for a minute so
 * that a broken image is not asked for again by each of them. Requests for one URL that arrive together
 * share one fetch. Loaded at the first proxied request (src/http/media.ts), with file-type and lru-cache.
 */

export const MEDIA_LIMITS = {
  /** The largest image served, after decompression: a larger one is cut off and refused. */
  maxBytes: 5 * 1024 * 1024,
  /** From the request to the last byte, waiting for a turn included. */
  timeoutMs: 15_000,
  /** The bytes of images (and remembered failures) kept in memory by each process. */
  cacheBytes: 32 * 1024 * 1024,
  /** How long a fetched image is served from memory. */
  cacheMs: 60 * 60_000,
  /** How long a failure is remembered (answered again without fetching). */
  failureMs: 60_000,
  /** Fetches at once, and at once from one host (as the page reader's). */
  fetches: 8,
  fetchesPerHost: 2,
  /** Requests fetching or waiting for a turn, at most; past it the proxy answers "busy". */
  pending: 64,
} as const;

export type MediaLimits = { -readonly [K in keyof typeof MEDIA_LIMITS]: number };

export const MEDIA_USER_AGENT = 'Tidings/0.1 (+https://github.com/tidings/tidings; media proxy)';

/** Why an image is not served. */
export type MediaRefusal =
  /** Its address is one the network policy refuses (a private network, unless allowed). */
  | 'private_address'
  /** What came back is no image the proxy serves (HTML, SVG, an unknown type, nothing). */
  | 'not_image'
  /** Larger than MEDIA_LIMITS.maxBytes. */
  | 'too_large'
  /** Not all there within MEDIA_LIMITS.timeoutMs. */
  | 'timeout'
  /** The server could not be reached, or answered with an error. */
  | 'failed'
  /** Too many requests already fetching or waiting: try again in a moment. */
  | 'busy';

export type MediaResult =
  { kind: 'image'; type: string; body: Buffer } | { kind: 'refused'; reason: MediaRefusal; message: string };

export interface MediaProxyOptions {
  policy: NetworkPolicy;
  /** For tests and measurements: other limits than MEDIA_LIMITS. */
  limits?: Partial<MediaLimits>;
}

const ENTRY_OVERHEAD = 256;

export class MediaProxy {
  private readonly limits: MediaLimits;
  private readonly cache: LRUCache<string, MediaResult>;
  private readonly inflight = new Map<string, Promise<MediaResult>>();
  private readonly slots: Semaphore;
  private readonly hostSlots: KeyedSemaphore;
  private pending = 0;

  constructor(private readonly options: MediaProxyOptions) {
    this.limits = { ...MEDIA_LIMITS, ...options.limits };
    this.cache = new LRUCache<string, MediaResult>({
      maxSize: this.limits.cacheBytes,
      sizeCalculation: (r) => ENTRY_OVERHEAD + (r.kind === 'image' ? r.body.length : r.message.length),
      ttl: this.limits.cacheMs,
    });
    this.slots = new Semaphore(this.limits.fetches);
    this.hostSlots = new KeyedSemaphore(this.limits.fetchesPerHost);
  }

  /** The image at `url` (an absolute http(s) URL the caller verified), or why it is not served. */
  image(url: string): Promise<MediaResult> {
    const cached = this.cache.get(url);
    if (cached !== undefined) return Promise.resolve(cached);
    const running = this.inflight.get(url);
    if (running !== undefined) return running;
    if (this.pending >= this.limits.pending) {
      return Promise.resolve(
        refused('busy', 'Tidings is fetching too many images right now; try again shortly'),
      );
    }
    this.pending++;
    const fetching = this.fetchOnce(url).finally(() => {
      this.pending--;
      this.inflight.delete(url);
    });
    this.inflight.set(url, fetching);
    return fetching;
  }

  private async fetchOnce(url: string): Promise<MediaResult> {
    const deadline = new AbortController();
    const late = refused(
      'timeout',
      `the image from ${hostOf(url)} took longer than ${seconds(this.limits.timeoutMs)}`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<MediaResult>((resolve) => {
      timer = setTimeout(() => {
        deadline.abort();
        resolve(late);
      }, this.limits.timeoutMs);
    });
    const fetched = this.hostSlots.run(hostOf(url), () =>
      this.slots.run(async () => {
        // The turn came after the time was up: the request was answered already.
        if (deadline.signal.aborted) return late;
        try {
          return await this.fetchImage(url, deadline.signal);
        } catch (err) {
          // fetchUrl answers every network outcome as a value; anything thrown is a bug, not the image's.
          return refused('failed', `the image from ${hostOf(url)} could not be read (${String(err)})`);
        }
      }),
    );
    try {
      const result = await Promise.race([fetched, timedOut]);
      this.remember(url, result);
      return result;
    } finally {
      clearTimeout(timer);
    }
  }

  private async fetchImage(url: string, signal: AbortSignal): Promise<MediaResult> {
    const host = hostOf(url);
    const result = await fetchUrl(url, {
      policy: this.options.policy,
      accept: MEDIA_ACCEPT,
      noun: 'image',
      maxBytes: this.limits.maxBytes,
      connectTimeoutMs: Math.min(this.limits.timeoutMs, 10_000),
      requestTimeoutMs: this.limits.timeoutMs,
      userAgent: MEDIA_USER_AGENT,
      signal,
    });
    if (result.kind !== 'ok') return failure(result, host, this.limits.timeoutMs);
    const declared = declaredRefusal(result.contentType);
    if (declared !== null) return refused('not_image', `the answer from ${host} is no image: ${declared}`);
    const type = await sniffedImageType(result.body);
    if (type === null) {
      return refused('not_image', `what ${host} sent is not a JPEG, PNG, GIF, WebP or AVIF image`);
    }
    return { kind: 'image', type, body: result.body };
  }

  private remember(url: string, result: MediaResult): void {
    if (result.kind === 'image') this.cache.set(url, result);
    else if (result.reason !== 'busy') this.cache.set(url, result, { ttl: this.limits.failureMs });
  }
}

function failure(result: Exclude<FetchResult, { kind: 'ok' }>, host: string, timeoutMs: number): MediaResult {
  if (result.kind !== 'error') return refused('failed', `${host} has no image at this address`);
  switch (result.code) {
    case 'private_address':
      return refused('private_address', result.message);
    case 'too_large':
      return refused('too_large', result.message);
    case 'timeout':
    case 'aborted':
      return refused('timeout', `the image from ${host} took longer than ${seconds(timeoutMs)}`);
    default:
      return refused('failed', result.message);
  }
}

function refused(reason: MediaRefusal, message: string): MediaResult {
  return { kind: 'refused', reason, message };
}

const seconds = (ms: number): string => `${ms / 1000} s`;
