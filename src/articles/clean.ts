import { foldWhitespace, htmlToText, truncate } from '../lib/text.js';
import { MAX_LINK_LENGTH, resolveHttpUrl } from '../lib/url.js';

/**
 * Caps on what extraction returns, in characters. A page chooses every string it sends, so each is
 * folded, stripped of control characters and cut before anything stores it.
 */
export const LIMITS = {
  title: 1000,
  /** What a reader sees under a title; the full text is kept in `text`, so more would add nothing. */
  description: 300,
  author: 200,
  siteName: 200,
  alt: 1000,
  url: MAX_LINK_LENGTH,
  language: 35,
} as const;

/**
 * Plain, folded text from a value a page sent, cut on a word to `limit`; null when nothing is left. Markup
 * in it ("<b>Title</b>", "&amp;") is read as HTML would show it: a title is text, never markup.
 */
export function plain(value: string | null | undefined, limit: number): string | null {
  if (value === null || value === undefined) return null;
  // A value ten times the cap holds all the text the cap keeps, whatever its markup and spaces.
  const bounded = value.length > limit * 10 ? value.slice(0, limit * 10) : value;
  const text = bounded.includes('<') || bounded.includes('&') ? htmlToText(bounded) : foldWhitespace(bounded);
  return text === '' ? null : truncate(text, limit);
}

/** An absolute http(s) URL made from `value` against `base`, or null: other schemes, junk, too long. */
export const httpUrl = resolveHttpUrl;

/** A positive whole number ("1200"), or null. */
export function positiveInt(value: string | null | undefined): number | null {
  if (value === null || value === undefined || !/^\s*\d{1,6}\s*$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

/** An ISO 8601 timestamp for a date a page sent, or null when it does not parse to a plausible time. */
export function isoTime(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  // Date.parse also reads "1" or "March"; require a year, a month and a day first.
  if (trimmed.length > 64 || !/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return null;
  const ms = Date.parse(trimmed);
  if (Number.isNaN(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1990 && year <= 2200 ? new Date(ms).toISOString() : null;
}

/** A BCP 47 tag ("en", "pt-BR") from `<html lang>` or og:locale ("en_US"), or null. */
export function languageTag(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const tag = value.trim().replace(/_/g, '-');
  if (tag.length > LIMITS.language || !/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(tag)) return null;
  const [primary = '', ...rest] = tag.split('-');
  const subtags = rest.map((s) =>
    s.length === 2
      ? s.toUpperCase()
      : s.length === 4
        ? s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()
        : s.toLowerCase(),
  );
  return [primary.toLowerCase(), ...subtags].join('-');
}
