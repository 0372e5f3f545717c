/**
 * A feed's share of a digest (issue 24, migration 0025): how many of its entries each digest shows, its
 * priority and "mute for a week". The one rule for the default and for the steps of "Fewer / More from
 * this feed", for the digest's choice, the CLI, the Feeds page and the e-mail's actions alike.
 *
 * The column subscriptions.per_digest holds null for the default, -1 for all of them, 0 for only the
 * "+N more from" line, or a number of entries (at most MAX_PER_DIGEST).
 */

/** What a digest shows of a feed whose subscription says nothing (per_digest null). */
export const DEFAULT_PER_DIGEST = 3;

/** The largest number of entries a reader may ask for; past it, "all". */
export const MAX_PER_DIGEST = 100;

/** Entries a digest shows of one feed: a number (0: only counted on its "+N more from" line) or all. */
export type PerDigest = number | 'all';

/** A setting as the reader gives it: a value, or the default (whatever DEFAULT_PER_DIGEST is then). */
export type PerDigestChoice = PerDigest | 'default';

/** "Mute for a week": how long a muted feed is only counted. */
export const MUTE_MS = 7 * 24 * 60 * 60 * 1000;

export const PRIORITIES = ['high', 'normal', 'low'] as const;

/** 'high' feeds come first; 'low' ones are only counted unless there is room. */
export type Priority = (typeof PRIORITIES)[number];

export const isPriority = (value: unknown): value is Priority =>
  typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value);

/** The column's value as a share: null is the default, a negative number all. */
export function perDigestOf(column: number | null): PerDigest {
  if (column === null) return DEFAULT_PER_DIGEST;
  return column < 0 ? 'all' : column;
}

/** What to store for a setting: null for the default, -1 for all, else the number. */
export function perDigestColumn(value: PerDigestChoice): number | null {
  if (value === 'default') return null;
  return value === 'all' ? -1 : value;
}

/** The setting a column holds, 'default' for null. */
export const perDigestChoiceOf = (column: number | null): PerDigestChoice =>
  column === null ? 'default' : perDigestOf(column);

/** Whether a number is one a reader may set: a whole number from 0 to MAX_PER_DIGEST. */
export const validPerDigest = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= MAX_PER_DIGEST;

/** 'all' or a whole number 0..MAX_PER_DIGEST as typed ('3', '0'); null for anything else. */
export function parsePerDigest(text: string): PerDigest | null {
  const value = text.trim().toLowerCase();
  if (value === 'all') return 'all';
  if (!/^[0-9]{1,3}$/.test(value)) return null;
  const n = Number(value);
  return validPerDigest(n) ? n : null;
}

/** parsePerDigest, or 'default'. */
export function parsePerDigestChoice(text: string): PerDigestChoice | null {
  return text.trim().toLowerCase() === 'default' ? 'default' : parsePerDigest(text);
}

/** 'all', or the number as digits. */
export const formatPerDigest = (value: PerDigest): string => (value === 'all' ? 'all' : String(value));

/**
 * The steps of "Fewer from this feed" and "More from this feed": a value between two steps moves to the
 * next one in that direction (7 fewer is 5, 7 more is 10); past the last number, more is all.
 */
const STEPS: readonly number[] = [0, 1, 2, 3, 5, 10];

/** One step fewer: all → 10 → 5 → 3 → 2 → 1 → 0; 0 stays 0. */
export function fewer(value: PerDigest): PerDigest {
  if (value === 'all') return STEPS[STEPS.length - 1] ?? 0;
  return [...STEPS].reverse().find((s) => s < value) ?? 0;
}

/** One step more: 0 → 1 → 2 → 3 → 5 → 10 → all; all stays all. */
export function more(value: PerDigest): PerDigest {
  if (value === 'all') return 'all';
  return STEPS.find((s) => s > value) ?? 'all';
}

/** Whether a feed muted until `mutedUntil` is muted at `now`. */
export const mutedAt = (mutedUntil: string | null, now: Date): boolean =>
  mutedUntil !== null && Date.parse(mutedUntil) > now.getTime();

/**
 * The mute of a newsletter sender the reader unsubscribed from (issue 34): until they unmute it, which
 * a time this far away stands for; the pages say "until you unmute it" rather than its date.
 */
export const MUTED_FOR_GOOD = '9999-12-31T00:00:00.000Z';

/** Whether a mute is MUTED_FOR_GOOD (or later). */
export const mutedForGood = (mutedUntil: string | null): boolean =>
  mutedUntil !== null && Date.parse(mutedUntil) >= Date.parse(MUTED_FOR_GOOD);
