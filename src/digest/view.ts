import {
  type LeadImage,
  type PageFacts,
  deliveredUrl,
  leadImage,
  readingMinutes,
  shownTitle,
  siteName,
} from '../lib/display.js';
import { foldWhitespace } from '../lib/text.js';
import { excerptOfText } from './excerpt.js';
import { domainOf, httpUrl } from '../lib/url.js';
import { type Locale, localeOf } from '../i18n/locale.js';
import { type CollapsedGroup, type LaidOutRow, feedGroupOf, laidOutGroups, legacyGroups } from './layout.js';
import { DIGEST_PAGE_ITEMS } from './limits.js';
import { type DigestLinks, digestLinks, digestPageUrl, readingLink } from './links.js';
import { type ResurfacedItemView, type ResurfacedRow, resurfacedViews } from './resurfacedView.js';
import type { DigestSection, QueueSource } from '../store/schema.js';
import { zoneOrUtc } from './zone.js';
export { timeLabel } from './labels.js';

/**
 * Everything a rendering of one digest needs, already resolved: the renderers (HTML email, plain text, web
 * page, Atom) only lay it out and escape it. Built by the pure `digestView()` from plain rows.
 */
export interface DigestView {
  id: number;
  account: { id: number; name: string; /** IANA zone the digest is shown in. */ timezone: string };
  /** The account's language: every rendering's words, dates and numbers, its `lang` and `dir`. */
  locale: Locale;
  /** The scheduled day in the reader's zone, YYYY-MM-DD. */
  localDate: string;
  /** That day spelled out: "Sunday 22 November 2026". */
  dateLabel: string;
  /** Short form for subject lines: "Sunday 22 November". */
  dateShort: string;
  /** When the digest was built, ISO UTC. */
  createdAt: string;
  /** The whole digest's, even when the view shows only part of it. */
  counts: DigestCounts;
  /**
   * The items shown, of the part of the digest this view holds (all of it, or a slice: see limits.ts):
   * "Saved" (from the API) first when there is any, then one group per feed, ordered by title.
   */
  groups: DigestGroup[];
  /** "From your reading list" (digest/resurface.ts): after the groups, on the web page's first page only. */
  resurfaced: ResurfacedItemView[];
  /** Entries an email left out to stay under its size limit (render/fit.ts); 0 otherwise. */
  cut: number;
  /** Laid out by its build (migration 0025: sections, entries, "+N more"), not a digest built before. */
  laidOut: boolean;
  /** Which of the digest's items the groups hold: 1-based positions, inclusive (`last` < `first`: none). */
  shown: { first: number; last: number };
  /** The page of the digest's web page the shown items start on, among how many, and the links to its neighbours. */
  page: DigestPage;
  links: DigestLinks;
}

export interface DigestPage {
  /** 1-based. */
  number: number;
  /** At least 1 (an empty digest has one, empty, page). */
  count: number;
  previous: string | null;
  next: string | null;
}

export interface DigestCounts {
  /** Items in this digest. */
  items: number;
  /** Of those, saved through the API. */
  saved: number;
  /** Of those, from feeds. */
  fromFeeds: number;
  /** The feeds those came from. */
  feeds: number;
  /** Items left in the queue for the next digest (over the account's maximum). */
  stillQueued: number;
  /** Entries the email shows (every item, for a digest built before migration 0025). */
  entries: number;
}

export interface DigestGroup {
  /** 'newsletter': a sender's group; the renderings head the first of them "Newsletters". */
  kind: 'saved' | 'top' | 'feed' | 'newsletter';
  /** "Saved", "Top stories", or the feed's (the sender's) name as the reader knows it. */
  title: string;
  /** The feed's id; null for "Saved", "Top stories" and items whose feed was since removed. */
  feedId: number | null;
  items: DigestItemView[];
  /** In an email: the feed's entries it only counts ("+N more from"), and where the web page lists them. */
  more: { count: number; href: string } | null;
  /**
   * The email's private links "Fewer from this feed", "More…", and "Mute for a week", or "Unmute" for a
   * feed muted when the view was read; null without them.
   */
  actions: GroupActions | null;
  /** The feed is muted (subscriptions.muted_until): until when, ISO and as `timeLabel` in the reader's zone. */
  muted: { until: string; label: string } | null;
}

export type GroupActions = { fewer: string; more: string } & ({ mute: string } | { unmute: string });

export interface DigestItemView {
  /** Title as given (by the person or the feed); else the page's title; else the URL. */
  title: string;
  /** The link as stored (may be anything a feed or client supplied). */
  url: string;
  /**
   * The link delivered, when it is an absolute http(s) URL (the only kind a rendering may turn into an
   * href): without tracking parameters unless the account keeps them; else null.
   */
  href: string | null;
  /** The page's site name; null when it was not read or gave none (renderings show `domain` then). */
  siteName: string | null;
  /** "6 min read"; null without a read page with text. */
  readingTime: string | null;
  /** The lead image (the page's, else the feed item's); null without one or with images turned off. */
  image: LeadImage | null;
  /** The reading view of the item's page (`/items/ID?token=…`); null when it has no text to read. */
  readHref: string | null;
  /** The page read for the item, when it has text to read (the EPUB's chapter); else null. */
  pageId: number | null;
  /** Host of the link without "www."; "" when the link has none. */
  domain: string;
  /** ISO UTC, or null when unknown. */
  published: string | null;
  /** `published` in the reader's zone: "Sat 21 Nov, 18:05"; null when unknown. */
  publishedLabel: string | null;
  /**
   * Plain text, at most EXCERPT_LIMIT characters, cut on a word with "…": the page's description, else
   * the feed's summary; "" when there is neither.
   */
  excerpt: string;
  /** The story's other sources (another feed's item of it): the feed's name and its own link. */
  alsoIn: { title: string; href: string | null }[];
  /** The digest item's id (the e-mail's "Keep for tomorrow" names it); null in fixtures without one. */
  itemId: number | null;
  /** On the web page: the item is one the email only counted. */
  counted: boolean;
  /** 1-based place in the digest: the web page's anchor `#item-N`. */
  number: number;
  /** The email's private "Keep for tomorrow" link; null without one (set by load.ts). */
  keepHref: string | null;
  /** The earlier digest that delivered its story, when it is not new. */
  seenIn: number | null;
}

// ---- Input: plain rows, as the store reads them ----

export interface DigestAccountRow {
  id: number;
  name: string;
  /** IANA zone; an unknown one renders in UTC rather than failing the digest. */
  timezone: string;
  /** Lead images beside items (default true). */
  show_images?: boolean;
  /** Delivered links without tracking parameters (default true). */
  clean_links?: boolean;
  /** accounts.language: null or absent for the operator's TIDINGS_LANGUAGE (src/i18n/locale.ts). */
  language?: string | null;
}

export interface DigestRow {
  id: number;
  /** The scheduled local day, YYYY-MM-DD in the account's zone. */
  local_date: string;
  /** ISO UTC. */
  created_at: string;
  /** Items still waiting in the queue once this digest took its maximum. */
  remaining: number;
  /** Entries its email shows (migration 0025); null or absent for digests built before. */
  shown_count?: number | null;
}

export interface DigestItemRow {
  /** digest_items.id; absent in fixtures. */
  id?: number;
  /** Its place in the digest, 0-based; absent in fixtures (then its index among the rows given). */
  position?: number;
  /** Where the build placed it (migration 0025); null or absent for digests built before. */
  section?: DigestSection | null;
  /** 0: the email only counts it. */
  shown?: number;
  /** Another source of a story: the position of its entry. */
  story_of?: number | null;
  seen_in?: number | null;
  url: string;
  title: string;
  source: QueueSource;
  feed_id: number | null;
  /** The reader's name for the feed (subscription title, else the feed's); null when unknown or removed. */
  feed_title: string | null;
  /** ISO UTC, or null. */
  published_at: string | null;
  /** When the item entered the queue, ISO UTC: orders items without a published time. */
  queued_at: string;
  /** Plain-text summary (as feed_items.summary stores it), or null. */
  summary: string | null;
  /** The page read for the item (a key of DigestViewInput.pages), or null. */
  page_id?: number | null;
  /** A feed item's own image, or null. */
  image_url?: string | null;
}

export interface DigestViewInput {
  account: DigestAccountRow;
  digest: DigestRow;
  /** In digest order (the queue's order): "Saved" keeps it; feed groups show newest first. */
  items: readonly DigestItemRow[];
  /** Public base URL of the instance (TIDINGS_BASE_URL), without a trailing slash. */
  baseUrl: string;
  /** The account's digest token, which the web link carries; null only where no link is followed (tests). */
  token: string | null;
  /** The pages the items point at that were read, by id (store/pageReads.ts); none by default. */
  pages?: ReadonlyMap<number, PageFacts>;
  /** The whole digest's counts when `items` is only a part of it (kept with the digest); else counted. */
  tally?: DigestTally;
  /** The position in the digest of the first of `items` (0, unless they are a later page). */
  offset?: number;
  /** An email's view: the feeds' entries it only counts (store/digestItems.ts shownItemsOfDigests). */
  collapsed?: readonly CollapsedGroup[];
  /** The reading-list items the digest offered (store/readingListOffers.ts); none by default. */
  resurfaced?: readonly ResurfacedRow[];
  /** The account's feeds muted when the view is read: feed id → muted until (ISO); none by default. */
  mutes?: ReadonlyMap<number, string>;
}

export { EXCERPT_LIMIT, excerptOfText } from './excerpt.js';
export { digestLinks, digestPageUrl, readingLink, type DigestLinks } from './links.js';

/** Builds the view of one digest (or of a part of it) from plain rows. Pure: same rows, same view. */
export function digestView(input: DigestViewInput): DigestView {
  const { account, digest } = input;
  const timezone = zoneOrUtc(account.timezone);
  const locale = localeOf(account.language);
  const links = digestLinks(input.baseUrl, digest.id, input.token);
  const shown: ItemContext = {
    timezone,
    locale,
    pages: input.pages ?? new Map(),
    showImages: account.show_images ?? true,
    cleanLinks: account.clean_links ?? true,
    readHref: (pageId) => readingLink(input.baseUrl, pageId, input.token),
  };
  const offset = input.offset ?? 0;
  const rows: LaidOutRow[] = input.items.map((row, index) => {
    const position = row.position ?? offset + index;
    return { row, item: { ...itemView(row, shown), number: position + 1 }, position };
  });
  const laidOut = input.items.some((r) => r.section !== null && r.section !== undefined);
  const pageOf = (position: number): number => Math.floor(position / DIGEST_PAGE_ITEMS) + 1;
  const mutes = input.mutes ?? new Map<number, string>();
  const groups = (
    laidOut
      ? laidOutGroups(
          rows,
          input.collapsed ?? [],
          (p) => `${digestPageUrl(links.web, pageOf(p))}#item-${p + 1}`,
        )
      : legacyGroups(rows)
  ).map((g) => {
    const until = g.kind === 'feed' && g.feedId !== null ? mutes.get(g.feedId) : undefined;
    const titled = g.kind === 'saved' || g.kind === 'top' ? { ...g, title: groupTitle(g.kind, locale) } : g;
    return until === undefined
      ? titled
      : { ...titled, muted: { until, label: locale.time(until, timezone) } };
  });
  const tally = input.tally ?? tallyOf(input.items);
  const pages = Math.max(1, Math.ceil(tally.items / DIGEST_PAGE_ITEMS));
  const page = pageOf(offset);
  return {
    id: digest.id,
    account: { id: account.id, name: account.name, timezone },
    locale,
    localDate: digest.local_date,
    dateLabel: locale.day(digest.local_date, true),
    dateShort: locale.day(digest.local_date, false),
    createdAt: digest.created_at,
    counts: {
      items: tally.items,
      saved: tally.saved,
      fromFeeds: tally.items - tally.saved,
      feeds: tally.feeds,
      stillQueued: Math.max(0, digest.remaining),
      entries: digest.shown_count ?? tally.items,
    },
    groups,
    resurfaced: resurfacedViews(input.resurfaced ?? [], { ...shown, createdAt: digest.created_at }),
    cut: 0,
    laidOut: laidOut || (digest.shown_count !== null && digest.shown_count !== undefined),
    shown: { first: offset + 1, last: offset + input.items.length },
    page: {
      number: page,
      count: pages,
      previous: page > 1 ? digestPageUrl(links.web, page - 1) : null,
      next: page < pages ? digestPageUrl(links.web, page + 1) : null,
    },
    links,
  };
}

/** What a digest holds: its items, those saved, and the feeds (as the view groups them) of the others. */
export interface DigestTally {
  items: number;
  saved: number;
  feeds: number;
}

/** The tally of a digest of these items: counted by the build and kept with the digest. */
export function tallyOf(
  items: readonly Pick<DigestItemRow, 'source' | 'feed_id' | 'feed_title'>[],
): DigestTally {
  const feeds = new Set<string>();
  let saved = 0;
  for (const row of items) {
    if (row.source === 'api') saved++;
    else feeds.add(feedGroupOf(row).key);
  }
  return { items: items.length, saved, feeds: feeds.size };
}

/** "Saved", "Top stories" (layout.ts names them in English) in the reader's language. */
function groupTitle(kind: 'saved' | 'top', locale: Locale): string {
  return locale.t(kind === 'saved' ? 'digest.section.saved' : 'digest.section.top');
}

interface ItemContext {
  timezone: string;
  locale: Locale;
  pages: ReadonlyMap<number, PageFacts>;
  showImages: boolean;
  cleanLinks: boolean;
  readHref: (pageId: number) => string | null;
}

function itemView(row: DigestItemRow, shown: ItemContext): DigestItemView {
  const url = row.url.trim();
  const parsed = httpUrl(url);
  const published = isoOrNull(row.published_at);
  const pageId = row.page_id ?? null;
  const page = pageId === null ? null : (shown.pages.get(pageId) ?? null);
  const description = foldWhitespace(page?.description ?? '') || row.summary;
  const readHref = page?.has_text === true && pageId !== null ? shown.readHref(pageId) : null;
  // A newsletter's link is its reading view: the private one, which opens without signing in.
  const href =
    row.source === 'newsletter' && readHref !== null
      ? readHref
      : parsed === null
        ? null
        : deliveredUrl(parsed.href, shown.cleanLinks);
  return {
    title: shownTitle(row.title, url, page),
    url,
    href,
    siteName: siteName(page),
    readingTime: shown.locale.minRead(readingMinutes(page)),
    image: leadImage(page, row.image_url, shown.showImages),
    readHref: row.source === 'newsletter' ? null : readHref,
    pageId: page?.has_text === true ? pageId : null,
    domain: parsed === null ? '' : domainOf(parsed),
    published,
    publishedLabel: published === null ? null : shown.locale.time(published, shown.timezone),
    excerpt: description === null ? '' : excerptOfText(description),
    alsoIn: [],
    number: 0,
    keepHref: null,
    itemId: row.id ?? null,
    counted: row.shown === 0,
    seenIn: row.seen_in ?? null,
  };
}

/** The form the store writes timestamps in: taken as it is. */
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isoOrNull(value: string | null): string | null {
  if (value === null) return null;
  if (CANONICAL_ISO.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
