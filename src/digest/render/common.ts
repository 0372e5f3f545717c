import { truncate } from '../../lib/text.js';
import type { DigestGroup, DigestView } from '../view.js';

/** Text made safe inside HTML, in element content and in attribute values alike: the one escape, as `esc`. */
export { escapeHtml as esc } from '../../lib/escape.js';

/** The section heading to put before `groups[index]`: "Newsletters" before the first sender's; else null. */
export function sectionBefore(view: DigestView, index: number): string | null {
  const { groups } = view;
  const group = groups[index];
  if (group?.kind !== 'newsletter') return null;
  return index > 0 && groups[index - 1]?.kind === 'newsletter'
    ? null
    : view.locale.t('digest.section.newsletters');
}

/** What a group's actions call its source (the messages' select): "feed", or "sender" for a newsletter's. */
export const sourceWord = (group: DigestGroup): string => (group.kind === 'newsletter' ? 'sender' : 'feed');

/** The subject line: "Tidings — Sunday 22 November: 12 new links". No feed-supplied text goes in it. */
export function digestSubject(view: DigestView): string {
  return view.locale.t('digest.subject', { date: view.dateShort, count: view.counts.items });
}

/** The counts as a sentence: "12 new links: 3 saved, 9 from 4 feeds. 5 more are waiting for the next digest." */
export function countsLine(view: DigestView): string {
  const { items, saved, fromFeeds, feeds, stillQueued } = view.counts;
  const t = view.locale;
  const line =
    items === 0
      ? t.t('digest.counts.none')
      : fromFeeds === 0
        ? t.t('digest.counts.allSaved', { items })
        : saved === 0
          ? t.t('digest.counts.fromFeeds', { items, feeds })
          : t.t('digest.counts.mixed', { items, saved, fromFeeds, feeds });
  return stillQueued > 0 ? t.t('digest.counts.withWaiting', { counts: line, waiting: stillQueued }) : line;
}

/**
 * Items of the digest after those the view shows: the entries an email left out for its size (fit.ts), and,
 * in a digest built before migration 0025, the items past the first ones its email and Atom entry show.
 */
export function itemsAfter(view: DigestView): number {
  return view.cut + (view.laidOut ? 0 : Math.max(0, view.counts.items - view.shown.last));
}

/**
 * "…and 9900 more links." under a digest shown in part, before the link to its web page: an email's
 * entries cut for its size "…and 12 more entries, cut to keep this email whole.", an Atom entry's "…and 12
 * more entries:"; "" when it is shown to its end.
 */
export function moreLine(view: DigestView, where: 'email' | 'atom' = 'email'): string {
  const count = itemsAfter(view);
  if (count === 0) return '';
  if (!view.laidOut) return view.locale.t('digest.more.links', { count });
  return view.locale.t(where === 'email' ? 'digest.more.emailCut' : 'digest.more.atom', { count });
}

/** Words read a minute when skimming a digest's entries, and seconds spent deciding on each. */
const WORDS_A_MINUTE = 230;
const SECONDS_AN_ENTRY = 4;

/** The minutes the entries a view shows take to read: their titles and summaries, and a moment each. */
export function readingMinutes(view: DigestView, excerptLimit: number): number {
  let words = 0;
  let entries = 0;
  for (const g of view.groups) {
    for (const i of g.items) {
      entries++;
      words += wordCount(i.title) + wordCount(i.excerpt.slice(0, excerptLimit));
    }
  }
  if (entries === 0) return 0;
  return Math.max(1, Math.round(words / WORDS_A_MINUTE + (entries * SECONDS_AN_ENTRY) / 60));
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** "48 entries · about 12 minutes to read", for the header of an email laid out by its build. */
export function entriesLine(view: DigestView, excerptLimit: number): string {
  const entries = view.groups.reduce((n, g) => n + g.items.length, 0);
  return view.locale.t('digest.entries', { entries, minutes: readingMinutes(view, excerptLimit) });
}

/** "Links 201–400 of 10000", for a page of a digest's web page. */
export function shownLine(view: DigestView): string {
  const { first, last } = view.shown;
  return last < first
    ? view.locale.t('digest.shown.none')
    : view.locale.t('digest.shown', { first, last, total: view.counts.items });
}

/**
 * The preview line a mail client shows after the subject: the counts, then the first titles, at most
 * `limit` characters (plain text: the caller escapes it).
 */
export function preheaderText(view: DigestView, limit = 140): string {
  const parts = [countsLine(view)];
  let length = parts[0]?.length ?? 0;
  for (const group of view.groups) {
    for (const item of group.items) {
      if (length > limit) break;
      parts.push(item.title);
      length += item.title.length + 3;
    }
  }
  return truncate(parts.join(' · '), limit);
}
