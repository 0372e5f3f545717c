import type { FetchError } from '../fetch/fetch.js';

/** Fetches of one page before it is given up as failed (temporary failures only; permanent ones fail at once). */
export const MAX_PAGE_ATTEMPTS = 5;

const MINUTE = 60_000;
/** The first retry waits about this long; each next one twice as long, up to MAX_DELAY_MS. */
const BASE_DELAY_MS = 2 * MINUTE;
const MAX_DELAY_MS = 6 * 60 * MINUTE;
/** A Retry-After shorter than this is waited out to here. */
const MIN_RETRY_AFTER_MS = MINUTE;
/** A Retry-After longer than this is not waited for: the page is retried then anyway. */
const MAX_RETRY_AFTER_MS = 24 * 60 * MINUTE;

/** Failures that may pass: the server busy or down, the network, a slow answer. */
const TEMPORARY_CODES = new Set<FetchError['code']>(['timeout', 'connection', 'dns']);

export function isTemporary(failure: Pick<FetchError, 'code' | 'status'>): boolean {
  if (failure.code === 'http_status') {
    const status = failure.status ?? 0;
    return status >= 500 || status === 429 || status === 408;
  }
  return TEMPORARY_CODES.has(failure.code);
}

/**
 * When to try a page again after its `attempts`-th attempt failed for a temporary reason: exponential
 * backoff with ±25% jitter; or, when the server said how long to wait (Retry-After), that (1 minute to 24
 * hours).
 */
export function nextAttemptAt(
  now: Date,
  attempts: number,
  retryAfterSeconds: number | null,
  random: () => number,
): Date {
  const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  const jittered = backoff * (0.75 + random() * 0.5);
  if (retryAfterSeconds === null) return new Date(now.getTime() + jittered);
  // Never at once (a "Retry-After: 0" would make a pass fetch the page again and again).
  const asked = Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, retryAfterSeconds * 1000));
  return new Date(now.getTime() + asked);
}
