/** The first retry comes after about this long. */
export const FIRST_RETRY_MS = 60_000;
/** No retry is ever further away than this. */
export const MAX_RETRY_MS = 24 * 60 * 60 * 1000;

/**
 * How long to wait before the next delivery attempt, after `attempt` failed ones (1 after the first failure):
 * 1 min, 2, 4, 8 … doubling, capped at 24 h, each drawn at random from the upper half of its step ("equal
 * jitter"), so that digests that failed together do not all retry in the same second, yet none comes back
 * much sooner than planned. `random` returns a number in [0, 1), as Math.random does.
 */
export function nextAttemptDelay(attempt: number, random: () => number = Math.random): number {
  const n = Number.isNaN(attempt) ? 1 : Math.max(1, Math.floor(attempt));
  // 2 ** 11 minutes is already past 24 h: stop doubling there, which also keeps huge attempts finite.
  const step = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(n - 1, 11));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.min(MAX_RETRY_MS, Math.round(step / 2 + (step / 2) * r));
}

/** Retries stop this long after the digest was built; the last one comes at that moment. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What becomes of a failed send: retried at `nextAttemptAt`, or given up with `error`. */
export type AfterFailure =
  { final: false; nextAttemptAt: string; error: string } | { final: true; error: string };

/**
 * The one rule for a failed digest send (the email or its e-reader copy): a temporary failure is retried
 * with backoff until RETRY_WINDOW_MS after the build; a permanent one, or one still failing then, is final.
 */
export function afterFailure(
  failure: { message: string; temporary: boolean },
  sent: { createdAt: string; attempts: number },
  now: number,
  random: () => number,
): AfterFailure {
  const giveUpAt = Date.parse(sent.createdAt) + RETRY_WINDOW_MS;
  if (!failure.temporary || !(now < giveUpAt)) {
    const error = failure.temporary
      ? `${failure.message} (gave up after ${sent.attempts} attempts in 24 hours)`
      : failure.message;
    return { final: true, error };
  }
  const next = Math.min(now + nextAttemptDelay(sent.attempts, random), giveUpAt);
  return { final: false, nextAttemptAt: new Date(next).toISOString(), error: failure.message };
}
