import type { AtomFeed, SyNs } from 'feedsmith';
import type { Markup } from './entry.js';
import { decodeBase64 } from './rewrites.js';

type Link = AtomFeed.Link<string>;

/**
 * The page an Atom entry or feed stands for: the first rel="alternate" link (a link without rel is one,
 * RFC 4287 §4.2.7.2), preferring an HTML one, as a feed may also point at its PDF or audio version.
 */
export function alternateLink(links: Link[] | undefined): string | undefined {
  let first: Link | undefined;
  for (const link of links ?? []) {
    if (link.rel !== undefined && link.rel !== 'alternate') continue;
    if (link.type === undefined || HTML_TYPE.test(link.type)) return link.href;
    first ??= link;
  }
  return first?.href;
}

const HTML_TYPE = /html/i;
/** A MIME type, not text/* and not XML: RFC 4287's base64-encoded content. */
const BINARY_TYPE = /^(?!text\/)[\w.+-]+\/(?![\w.+-]*xml\b)[\w.+-]+$/i;

export function selfLink(links: Link[] | undefined): string | undefined {
  return links?.find((l) => l.rel === 'self')?.href;
}

export function enclosureLink(links: Link[] | undefined): Link | undefined {
  return links?.find((l) => l.rel === 'enclosure');
}

/**
 * An Atom text construct. Atom 1.0 says "text", "html" or "xhtml"; Atom 0.3 used MIME types such as
 * "text/html" or "application/xhtml+xml". Without a type it is text. With a MIME type that is neither
 * text nor XML (application/octet-stream), the value is base64 (RFC 4287 §4.1.3.3), read as HTML once
 * decoded, as Atom 0.3's mode="base64" is (rewrites.ts).
 */
export function atomText(text: { value?: string; type?: string } | undefined): Markup | undefined {
  if (text?.value === undefined) return undefined;
  const type = text.type;
  if (type !== undefined && BINARY_TYPE.test(type)) {
    const decoded = decodeBase64(text.value);
    if (decoded !== null) return { type: 'html', value: decoded };
  }
  const isHtml =
    type === 'html' || type === 'xhtml' || (type !== undefined && type !== 'text' && HTML_TYPE.test(type));
  return { type: isHtml ? 'html' : 'text', value: text.value };
}

/** Names, or addresses where no name is given, of RSS and Atom persons; undefined when there are none. */
export function personNames(people: { name?: string; email?: string }[] | undefined): string[] | undefined {
  if (people === undefined || people.length === 0) return undefined;
  if (people.length === 1) {
    const only = people[0];
    const name = only?.name ?? only?.email ?? '';
    return name.trim() === '' ? undefined : [name];
  }
  const names = people.map((p) => p.name ?? p.email ?? '').filter((n) => n.trim() !== '');
  return names.length === 0 ? undefined : names;
}

const PERIOD_MINUTES: Readonly<Record<string, number>> = {
  hourly: 60,
  daily: 24 * 60,
  weekly: 7 * 24 * 60,
  monthly: 30 * 24 * 60,
  yearly: 365 * 24 * 60,
};

/** The fetch interval an RSS ttl or the syndication module asks for, in whole minutes, or null. */
export function ttlMinutes(ttl: number | undefined, sy: SyNs.Feed<string> | undefined): number | null {
  if (ttl !== undefined && Number.isFinite(ttl) && ttl > 0) return Math.round(ttl);
  if (sy?.updatePeriod === undefined) return null;
  const period = PERIOD_MINUTES[sy.updatePeriod.trim().toLowerCase()];
  const frequency = sy.updateFrequency ?? 1; // the module's default: once per period
  if (period === undefined || !Number.isFinite(frequency) || frequency < 1) return null;
  return Math.max(1, Math.round(period / frequency));
}
