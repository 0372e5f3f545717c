import { createHash } from 'node:crypto';
import { parseFeedDate } from './dates.js';
import type { FeedItem } from './model.js';
import { escapeHtml } from '../../lib/escape.js';
import { paragraphsOfHtml, paragraphsOfText } from '../../lib/paragraphs.js';
import { foldWhitespace, htmlToText, truncate } from '../../lib/text.js';
import { isTrackingSource } from '../../lib/trackingPixels.js';
import { isHttpUrl, resolveHttpUrl } from './urls.js';

/** What every format's reader needs besides the document: where relative links resolve, and "now". */
export interface ReadContext {
  /** The URL the feed was fetched from, when known. */
  url: string | null;
  now: Date;
}

/** Text as a feed gives it: plain, or HTML (escaped or in CDATA in the XML, already unescaped here). */
export interface Markup {
  type: 'text' | 'html';
  value: string;
}

/** What each format's reader takes from one entry, before the rules common to all formats apply. */
export interface EntryFields {
  /** guid, id or rdf:about, as published. */
  guid?: string | undefined;
  /** False when the feed says the guid is not a link (RSS isPermaLink="false"). */
  guidIsLink: boolean;
  link?: string | undefined;
  /** The base its relative links resolve against: xml:base, the feed URL or the site, in that order. */
  base: string | null;
  title?: Markup | undefined;
  published?: string | undefined;
  updated?: string | undefined;
  summary?: Markup | undefined;
  content?: Markup | undefined;
  authors: string[];
  enclosure?: EnclosureFields | undefined;
  /** The item's own pictures as published, preferred first (see images.ts); an image enclosure follows. */
  images?: (string | undefined)[] | undefined;
}

export interface EnclosureFields {
  url?: string | undefined;
  type?: string | undefined;
  length?: number | undefined;
}

export const SUMMARY_LIMIT = 1000;

/** Dates further ahead than this are a publisher's broken clock or a scheduled post, not a real date. */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/** Applies the rules every format shares: identity, URL resolution, plain text, dates. */
export function toFeedItem(fields: EntryFields, now: Date): FeedItem {
  const guid = nonBlank(fields.guid);
  // The guid is read as a URL only when there is no link: most items have one.
  const url =
    resolveHttpUrl(fields.link, fields.base) ??
    (guid !== undefined && fields.guidIsLink && isHttpUrl(guid) ? guid : null);
  const title = fields.title === undefined ? '' : plainText(fields.title);
  const body = fields.content ?? fields.summary;
  const summaryOf = fields.summary ?? fields.content;
  const updated = plausibleDate(fields.updated, now);
  return {
    id: guid ?? url ?? contentHash(title, body?.value ?? ''),
    url,
    title,
    published: plausibleDate(fields.published, now) ?? updated,
    updated,
    summary: summaryOf === undefined ? '' : truncate(summaryText(summaryOf), SUMMARY_LIMIT),
    contentHtml: body === undefined ? null : asHtml(body),
    author: authorLine(fields.authors),
    enclosure: enclosureOf(fields.enclosure, fields.base),
    image: imageOf(fields),
  };
}

/**
 * The first of the item's pictures that resolves to an http(s) URL, else an image enclosure; or null. A
 * known tracker's image (lib/trackingPixels.ts) is no picture.
 */
function imageOf(fields: EntryFields): string | null {
  for (const candidate of fields.images ?? []) {
    const url = resolveHttpUrl(nonBlank(candidate), fields.base);
    if (url !== null && !isTrackingSource(url)) return url;
  }
  const type = fields.enclosure?.type?.trim().toLowerCase() ?? '';
  const enclosure = type.startsWith('image/') ? resolveHttpUrl(fields.enclosure?.url, fields.base) : null;
  return enclosure === null || isTrackingSource(enclosure) ? null : enclosure;
}

export function plainText(markup: Markup): string {
  return markup.type === 'html' ? htmlToText(markup.value) : foldWhitespace(markup.value);
}

/** A summary's plain text, its paragraphs kept (one line feed between two), read as far as it is kept. */
function summaryText(markup: Markup): string {
  return markup.type === 'html'
    ? paragraphsOfHtml(markup.value, SUMMARY_LIMIT)
    : paragraphsOfText(markup.value);
}

function asHtml(markup: Markup): string {
  return markup.type === 'html' ? markup.value : escapeHtml(markup.value);
}

/** A value that holds more than whitespace, trimmed. */
function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function contentHash(title: string, content: string): string {
  return `hash:${createHash('sha256').update(`${title}\n${content}`).digest('hex')}`;
}

function plausibleDate(raw: string | undefined, now: Date): Date | null {
  const date = parseFeedDate(raw);
  return date !== null && date.getTime() - now.getTime() <= FUTURE_SLACK_MS ? date : null;
}

function authorLine(authors: string[]): string | null {
  if (authors.length <= 1) {
    const name = authors[0] === undefined ? '' : foldWhitespace(authors[0]);
    return name === '' ? null : name;
  }
  const names = [...new Set(authors.map(foldWhitespace).filter((a) => a !== ''))];
  return names.length === 0 ? null : names.join(', ');
}

function enclosureOf(enclosure: EnclosureFields | undefined, base: string | null): FeedItem['enclosure'] {
  const url = resolveHttpUrl(enclosure?.url, base);
  if (url === null) return null;
  const length = enclosure?.length;
  return {
    url,
    type: nonBlank(enclosure?.type) ?? null,
    length: length !== undefined && Number.isSafeInteger(length) && length >= 0 ? length : null,
  };
}
