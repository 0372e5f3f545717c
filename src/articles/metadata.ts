import { getDomain } from 'tldts';
import { bylineAuthor } from '../lib/display.js';
import { httpUrl, isoTime, languageTag, LIMITS, plain, positiveInt } from './clean.js';
import type { DomDocument } from './dom.js';
import { readJsonLd } from './jsonLd.js';
import { stripSiteSuffix } from './title.js';

export interface LeadImage {
  url: string;
  width: number | null;
  height: number | null;
  alt: string | null;
}

/** What a page says about itself, each value cleaned and capped (articles/clean.ts); null when absent. */
export interface PageMetadata {
  title: string | null;
  /** At most 300 characters, cut on a word: what a reader sees under the title. */
  description: string | null;
  siteName: string | null;
  author: string | null;
  /** ISO 8601, only when the page's date parses. */
  publishedAt: string | null;
  /** A BCP 47 tag: "en", "pt-BR". */
  language: string | null;
  /** The writing direction the page declares on <html> (or <body>): kept by the reading view. */
  direction: 'rtl' | 'ltr' | null;
  /** Only when http(s) and on the page's own registrable domain. */
  canonicalUrl: string | null;
  image: LeadImage | null;
}

/** The content of every <meta> by its property, name or itemprop, lower-cased; the first one wins. */
function metaTags(doc: DomDocument): Map<string, string> {
  const tags = new Map<string, string>();
  for (const meta of doc.querySelectorAll('meta[content]')) {
    const key = meta.getAttribute('property') ?? meta.getAttribute('name') ?? meta.getAttribute('itemprop');
    const content = meta.getAttribute('content');
    if (key === null || content === null || content.trim() === '') continue;
    const k = key.trim().toLowerCase();
    if (!tags.has(k)) tags.set(k, content);
  }
  return tags;
}

/** The registrable domain of a URL ("www.nytimes.com" → "nytimes.com"); the host itself for IPs and such. */
export function siteOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return getDomain(host) ?? (host === '' ? null : host);
  } catch {
    return null;
  }
}

function leadImage(meta: Map<string, string>, base: string | null): LeadImage | null {
  const secure = httpUrl(meta.get('og:image:secure_url'), base);
  const og =
    (secure?.startsWith('https:') ? secure : null) ??
    httpUrl(meta.get('og:image') ?? meta.get('og:image:url'), base);
  if (og !== null) {
    return {
      url: og,
      width: positiveInt(meta.get('og:image:width')),
      height: positiveInt(meta.get('og:image:height')),
      alt: plain(meta.get('og:image:alt'), LIMITS.alt),
    };
  }
  const twitter = httpUrl(meta.get('twitter:image') ?? meta.get('twitter:image:src'), base);
  return twitter === null
    ? null
    : { url: twitter, width: null, height: null, alt: plain(meta.get('twitter:image:alt'), LIMITS.alt) };
}

/** The page's canonical URL when it is http(s) and on the same registrable domain as the page. */
function canonical(doc: DomDocument, base: string | null, pageUrl: string | null): string | null {
  for (const link of doc.querySelectorAll('link[rel][href]')) {
    const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('canonical')) continue;
    const url = httpUrl(link.getAttribute('href'), base);
    const site = siteOf(pageUrl);
    return url !== null && site !== null && siteOf(url) === site ? url : null;
  }
  return null;
}

/** A declared `dir`: "rtl" or "ltr" (any case); null for "auto", nothing or anything else. */
function direction(value: string | null | undefined): 'rtl' | 'ltr' | null {
  const dir = value?.trim().toLowerCase();
  return dir === 'rtl' || dir === 'ltr' ? dir : null;
}

/** A meta author that is a name, not a profile URL (article:author often is one). */
const personName = (value: string | undefined): string | undefined =>
  value === undefined || /^\s*(?:https?:)?\/\//i.test(value) ? undefined : value;

/**
 * The page's author: its meta author, else article:author when it is a name, else its JSON-LD authors,
 * each only when it is a name (lib/display.ts bylineAuthor: not the site's name, not a date).
 */
function authorOf(
  meta: Map<string, string>,
  ldAuthors: readonly string[],
  siteName: string | null,
  domain: string | null,
): string | null {
  const name = (value: string | undefined): string | null =>
    bylineAuthor(plain(value, LIMITS.author), siteName, domain);
  const ld = ldAuthors.map((a) => name(a)).filter((a): a is string => a !== null);
  return (
    name(meta.get('author')) ??
    name(personName(meta.get('article:author'))) ??
    plain(ld.length === 0 ? null : ld.join(', '), LIMITS.author)
  );
}

/**
 * Reads a page's metadata, before Readability changes the document: Open Graph, Twitter cards, <meta>
 * names, JSON-LD, <title>, <link rel=canonical>, <html lang>. `base` resolves relative URLs (the page's
 * <base href> or its own URL), `pageUrl` is where the page was fetched from.
 */
export function readMetadata(doc: DomDocument, base: string | null, pageUrl: string | null): PageMetadata {
  const meta = metaTags(doc);
  const ld = readJsonLd(doc);
  const domain = siteOf(pageUrl);
  const ogSiteName = plain(meta.get('og:site_name'), LIMITS.siteName);
  const documentTitle = plain(doc.querySelector('title')?.textContent, LIMITS.title * 2);
  const title =
    plain(meta.get('og:title'), LIMITS.title) ??
    plain(meta.get('twitter:title'), LIMITS.title) ??
    plain(ld?.headline, LIMITS.title) ??
    plain(documentTitle === null ? null : stripSiteSuffix(documentTitle, ogSiteName, domain), LIMITS.title) ??
    plain(doc.querySelector('h1')?.textContent, LIMITS.title);
  return {
    title,
    description:
      plain(meta.get('og:description'), LIMITS.description) ??
      plain(meta.get('description'), LIMITS.description) ??
      plain(meta.get('twitter:description'), LIMITS.description) ??
      plain(ld?.description, LIMITS.description),
    siteName: ogSiteName ?? domain,
    author: authorOf(meta, ld?.authors ?? [], ogSiteName, domain),
    publishedAt: isoTime(meta.get('article:published_time')) ?? isoTime(ld?.datePublished),
    language: languageTag(doc.documentElement?.getAttribute('lang')) ?? languageTag(meta.get('og:locale')),
    direction:
      direction(doc.documentElement?.getAttribute('dir')) ??
      direction(doc.querySelector('body')?.getAttribute('dir')),
    canonicalUrl: canonical(doc, base, pageUrl),
    image: leadImage(meta, base),
  };
}
