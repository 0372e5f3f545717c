import { cleanUrl } from './cleanUrl.js';
import { codePoints, foldWhitespace, truncate } from './text.js';

/**
 * How a queued or digested item is shown once its page was read (issue 11), the same in digests (email,
 * web page, Atom) and on the queue page: which title, the reading time, the lead image and its size, the
 * link delivered. Pure rules over plain values; the callers read the rows.
 */

/** What a list shows of a page that was read (store/pageReads.ts `PageCard` has this shape). */
export interface PageFacts {
  title: string | null;
  description: string | null;
  site_name: string | null;
  reading_minutes: number;
  image_url: string | null;
  image_width: number | null;
  image_height: number | null;
  image_alt: string | null;
  has_text: boolean;
}

/**
 * The title to show: one the person (or the feed) gave always wins; the API stores the URL as the title
 * when none was given, and then the page's own title replaces it. Whitespace folded; the URL at worst.
 */
export function shownTitle(
  title: string,
  url: string,
  page: Pick<PageFacts, 'title'> | null | undefined,
): string {
  const given = foldWhitespace(title);
  const pageTitle = foldWhitespace(page?.title ?? '');
  if ((given === '' || given === url.trim()) && pageTitle !== '') return pageTitle;
  return given || url.trim();
}

/**
 * The longest title shown, in characters: longer ones are cut on a word with "…". Item titles are cut to it
 * as they are queued (queue/url.ts checkTitle); a feed's title, as the feed sent it, where it is shown.
 */
export const MAX_TITLE_LENGTH = 1000;

/**
 * A feed's title as a heading shows it (a digest's group of the feed's items): folded, and cut as item
 * titles are (MAX_TITLE_LENGTH); "" when it has none, for the caller to name the group otherwise.
 */
export function displayFeedTitle(title: string | null | undefined): string {
  const folded = foldWhitespace(title ?? '');
  return codePoints(folded) > MAX_TITLE_LENGTH ? truncate(folded, MAX_TITLE_LENGTH) : folded;
}

/** The minutes a page takes to read; null when it has no text to time. */
export function readingMinutes(page: Pick<PageFacts, 'reading_minutes'> | null | undefined): number | null {
  const minutes = page?.reading_minutes ?? 0;
  return minutes > 0 ? minutes : null;
}

/** "6 min read" (English: the web pages, until they are translated); null when the page has no text to time. */
export function readingTime(page: Pick<PageFacts, 'reading_minutes'> | null | undefined): string | null {
  const minutes = readingMinutes(page);
  return minutes === null ? null : `${minutes} min read`;
}

/** The page's site name, folded; null when it gave none. */
export function siteName(page: Pick<PageFacts, 'site_name'> | null | undefined): string | null {
  return foldWhitespace(page?.site_name ?? '') || null;
}

/** What pages put in their author fields that is a date or a time, not a name ("21.dez.2018 às 10h55"). */
const DATE_LIKE = [
  /\b(?:1[89]|20)\d\d\b/, // a year
  /\b\d{1,2}\s*[:h]\s*\d{2}\b/i, // a time: 10:55, 10h55
  /\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/, // 21/12/2018
  /\b\d{1,2}(?:st|nd|rd|th)?[.\s/-]*(?:jan|feb|fev|fév|mar|apr|abr|avr|may|mai|jun|jul|aug|ago|aoû|sep|set|oct|out|okt|nov|dec|dez|dic|déc)/i,
  /^\W*\d+\W*$/, // digits only
];

const sameName = (a: string, b: string): boolean =>
  a.localeCompare(b, undefined, { sensitivity: 'base' }) === 0;

/**
 * The author a byline shows beside the site: null when the page's author field holds only the site's name
 * (or its domain: "BBC News · BBC News") or a date or time, which is no author. One rule, for what the
 * page reader keeps and for what a page shows (pages read before it).
 */
export function bylineAuthor(
  author: string | null | undefined,
  ...sites: (string | null | undefined)[]
): string | null {
  const name = foldWhitespace(author ?? '');
  if (name === '' || DATE_LIKE.some((re) => re.test(name))) return null;
  if (sites.some((site) => site != null && sameName(name, foldWhitespace(site)))) return null;
  return name;
}

export interface LeadImage {
  /** Absolute http(s). */
  url: string;
  width: number | null;
  height: number | null;
  /** Short alternative text ("" when the page gave none: the picture is then decorative). */
  alt: string;
}

/** Alternative text beyond this is cut: a thumbnail beside a title needs a few words at most. */
const ALT_LIMIT = 100;

/**
 * The picture shown beside an item: the page's lead image, else the feed item's own; null when the
 * account turned images off or there is none that is an absolute http(s) URL.
 */
export function leadImage(
  page: Pick<PageFacts, 'image_url' | 'image_width' | 'image_height' | 'image_alt'> | null | undefined,
  itemImage: string | null | undefined,
  showImages: boolean,
): LeadImage | null {
  if (!showImages) return null;
  if (page?.image_url != null && isHttp(page.image_url)) {
    return {
      url: page.image_url,
      width: positive(page.image_width),
      height: positive(page.image_height),
      alt: truncate(foldWhitespace(page.image_alt ?? ''), ALT_LIMIT),
    };
  }
  return itemImage != null && isHttp(itemImage)
    ? { url: itemImage, width: null, height: null, alt: '' }
    : null;
}

/**
 * The size a thumbnail is drawn at inside a `box` × `box` square: the image's own proportions when they
 * are known, else 4:3. Always set as width and height attributes, so the layout holds while a mail
 * client blocks remote images.
 */
export function thumbnailSize(image: LeadImage, box: number): { width: number; height: number } {
  if (image.width === null || image.height === null) return { width: box, height: Math.round((box * 3) / 4) };
  const scale = Math.min(box / image.width, box / image.height, 1);
  return {
    width: Math.max(1, Math.round(image.width * scale)),
    height: Math.max(1, Math.round(image.height * scale)),
  };
}

/** The link delivered to the reader: without tracking parameters unless the account keeps them. */
export function deliveredUrl(url: string, clean: boolean): string {
  return clean ? cleanUrl(url) : url;
}

function positive(n: number | null): number | null {
  return n !== null && Number.isSafeInteger(n) && n > 0 ? n : null;
}

function isHttp(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
