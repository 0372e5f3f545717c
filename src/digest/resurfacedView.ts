import { tagList } from '../lib/readingTags.js';
import { type PageFacts, deliveredUrl, readingMinutes, shownTitle, siteName } from '../lib/display.js';
import { ENGLISH, type Locale } from '../i18n/locale.js';
import { foldWhitespace } from '../lib/text.js';
import { domainOf, httpUrl } from '../lib/url.js';
import type { OfferedItem } from '../store/readingListOffers.js';
import { excerptOfText } from './excerpt.js';

/*
 * The items of a digest's "From your reading list" section (digest/resurface.ts) as every rendering shows
 * them: title, site, when saved ("saved 3 years ago", counted from the digest's build, so a digest reads
 * the same every time), tags, the description, and the links of its actions once actionLinks.ts adds them.
 */

/** A row of store/readingListOffers.ts offeredOfDigests (fixtures may leave out what they do not need). */
export type ResurfacedRow = Pick<OfferedItem, 'id' | 'url' | 'title' | 'state' | 'tags' | 'saved_at'> &
  Partial<Pick<OfferedItem, 'description' | 'page_id' | 'has_html' | 'kept_at'>>;

export interface ResurfacedItemView {
  /** reading_list.id: what the section's actions name. */
  readingId: number;
  title: string;
  url: string;
  /** The link delivered (absolute http(s) only, cleaned as the account wants); null otherwise. */
  href: string | null;
  /** The read page's site name, else the link's domain; "" without either. */
  site: string;
  savedAt: string;
  /** "saved 3 years ago", "saved yesterday". */
  savedLabel: string;
  tags: string[];
  excerpt: string;
  readingTime: string | null;
  /** The reading view of its page, when one was read with text (the account's token); else null. */
  readHref: string | null;
  /** That page's id (the EPUB's chapter); null when none was read. */
  pageId: number | null;
  /** It brought readable text of its own from its export (Omnivore, Wallabag): the EPUB's chapter. */
  ownText: boolean;
  /** Archived since it was offered (the web page says so). */
  archived: boolean;
  /** The email's private links "Archive" and "Keep for tomorrow" (actionLinks.ts); null without them. */
  archiveHref: string | null;
  tomorrowHref: string | null;
}

export interface ResurfacedContext {
  pages: ReadonlyMap<number, PageFacts>;
  cleanLinks: boolean;
  readHref: (pageId: number) => string | null;
  /** The digest's build, ISO: "saved … ago" counts from it. */
  createdAt: string;
  locale: Locale;
}

export function resurfacedViews(
  rows: readonly ResurfacedRow[],
  ctx: ResurfacedContext,
): ResurfacedItemView[] {
  return rows.map((row) => {
    const url = row.url.trim();
    const parsed = httpUrl(url);
    const pageId = row.page_id ?? null;
    const page = pageId === null ? null : (ctx.pages.get(pageId) ?? null);
    const read = page?.has_text === true && pageId !== null;
    const description = foldWhitespace(row.description ?? '') || foldWhitespace(page?.description ?? '');
    return {
      readingId: row.id,
      title: shownTitle(row.title, url, page),
      url,
      href: parsed === null ? null : deliveredUrl(parsed.href, ctx.cleanLinks),
      site: siteName(page) ?? (parsed === null ? '' : domainOf(parsed)),
      savedAt: row.saved_at,
      savedLabel: savedAgo(row.saved_at, ctx.createdAt, ctx.locale),
      tags: tagsOf(row.tags),
      excerpt: excerptOfText(description),
      readingTime: ctx.locale.minRead(readingMinutes(page)),
      readHref: read ? ctx.readHref(pageId) : null,
      pageId: read ? pageId : null,
      ownText: (row.has_html ?? 0) === 1,
      archived: row.state === 'archived',
      archiveHref: null,
      tomorrowHref: null,
    };
  });
}

/** The stored form "\nweb\nrust\n" as ['web', 'rust'] (lib/readingTags.ts). */
export const tagsOf = tagList;

const DAY_MS = 24 * 60 * 60 * 1000;

/** "saved today", "saved yesterday", "saved 12 days ago", "saved 5 months ago", "saved 3 years ago". */
export function savedAgo(savedAt: string, now: string, locale: Locale = ENGLISH): string {
  const saved = Date.parse(savedAt);
  const at = Date.parse(now);
  if (Number.isNaN(saved) || Number.isNaN(at)) return locale.t('digest.saved.unknown');
  const days = Math.floor(Math.max(0, at - saved) / DAY_MS);
  if (days < 31) return locale.t('digest.saved.days', { days });
  if (days < 365) return locale.t('digest.saved.months', { months: Math.max(1, Math.floor(days / 30.44)) });
  return locale.t('digest.saved.years', { years: Math.floor(days / 365.25) || 1 });
}
