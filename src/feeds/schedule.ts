/** When to fetch a feed next: pure functions of what the last fetch learned. */

export const MIN_INTERVAL_MINUTES = 15;
export const MAX_INTERVAL_MINUTES = 24 * 60;
const DEFAULT_INTERVAL_MINUTES = 60;
const MINUTE = 60_000;

const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

/**
 * How often a feed posts, as a polling interval: half the median gap between its latest items (so a new
 * post waits on average a quarter of a gap), clamped to 15 min – 24 h. Without two dated items: 1 h.
 */
export function intervalFromPosts(published: readonly (Date | null)[]): number {
  const times = published
    .filter((d): d is Date => d !== null)
    .map((d) => d.getTime())
    .sort((a, b) => b - a)
    .slice(0, 20);
  if (times.length < 2) return DEFAULT_INTERVAL_MINUTES;
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(((times[i - 1] ?? 0) - (times[i] ?? 0)) / MINUTE);
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)] ?? DEFAULT_INTERVAL_MINUTES;
  return Math.round(clamp(median / 2, MIN_INTERVAL_MINUTES, MAX_INTERVAL_MINUTES));
}

/** What the publisher asked for: Cache-Control max-age, Expires, RSS ttl (all optional). */
export interface PublisherHints {
  maxAgeSeconds?: number | null;
  expires?: Date | null;
  ttlMinutes?: number | null;
}

/**
 * The next fetch after a success: the posting interval, pushed later (never earlier) by the publisher's
 * hints, all clamped to 15 min – 24 h.
 */
export function nextFetchAfterSuccess(now: Date, intervalMinutes: number, hints: PublisherHints): Date {
  let minutes = intervalMinutes;
  if (hints.maxAgeSeconds != null) minutes = Math.max(minutes, hints.maxAgeSeconds / 60);
  if (hints.ttlMinutes != null) minutes = Math.max(minutes, hints.ttlMinutes);
  if (hints.expires != null) minutes = Math.max(minutes, (hints.expires.getTime() - now.getTime()) / MINUTE);
  return new Date(now.getTime() + clamp(minutes, MIN_INTERVAL_MINUTES, MAX_INTERVAL_MINUTES) * MINUTE);
}

/**
 * The next fetch after the n-th failure in a row (n ≥ 1): 15 min doubling each time up to 24 h, with
 * ±20 % jitter so that feeds failing together (one host down) do not come back together. Never gives
 * up: a feed failing for days is still tried daily, and its error stays visible. Retry-After, when the
 * server sent one, is honoured if it asks for longer.
 */
export function nextFetchAfterError(
  now: Date,
  consecutiveErrors: number,
  retryAfterSeconds: number | null = null,
  random: () => number = Math.random,
): Date {
  const base = MIN_INTERVAL_MINUTES * 2 ** Math.min(Math.max(consecutiveErrors, 1) - 1, 16);
  const jittered = Math.min(base, MAX_INTERVAL_MINUTES) * (0.8 + 0.4 * random());
  const minutes = Math.max(jittered, (retryAfterSeconds ?? 0) / 60);
  return new Date(now.getTime() + Math.min(minutes, MAX_INTERVAL_MINUTES) * MINUTE);
}
