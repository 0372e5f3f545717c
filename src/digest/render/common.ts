import { truncate } from '../../lib/text.js';
import type { DigestGroup, DigestView } from '../view.js';

/** Text made safe inside HTML, in element content and in attribute values alike: the one escape, as `esc`. */
export { escapeHtml as esc } from '../../lib/escape.js';

/** The heading of the section newsletters' groups form (they come last: digest/choose/choose.ts). */
export const NEWSLETTERS_HEADING = 'Newsletters';

/** The section heading to put before `groups[index]`: "Newsletters" before the first sender's; else null. */
export function sectionBefore(groups: readonly DigestGroup[], index: number): string | null {
  const group = groups[index];
  if (group?.kind !== 'newsletter') return null;
  return index > 0 && groups[index - 1]?.kind === 'newsletter' ? null : NEWSLETTERS_HEADING;
}

/** What a group's actions call its source: "this feed", or "this sender" for a newsletter's. */
export const sourceWord = (group: DigestGroup): string => (group.kind === 'newsletter' ? 'sender' : 'feed');

/** "1 new link", "12 new links". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The subject line: "Tidings — Sunday 22 November: 12 new links". No feed-supplied text goes in it. */
export function digestSubject(view: DigestView): string {
  const what = view.counts.items === 0 ? 'nothing new' : plural(view.counts.items, 'new link');
  return `Tidings — ${view.dateShort}: ${what}`;
}

/** The counts as a sentence: "12 new links: 3 saved, 9 from 4 feeds. 5 more are waiting for the next digest." */
export function countsLine(view: DigestView): string {
  const { items, saved, fromFeeds, feeds, stillQueued } = view.counts;
  let line: string;
  if (items === 0) line = 'Nothing new this time.';
  else if (fromFeeds === 0) line = `${plural(items, 'new link')}, all saved by you.`;
  else if (saved === 0) line = `${plural(items, 'new link')} from ${plural(feeds, 'feed')}.`;
  else line = `${plural(items, 'new link')}: ${saved} saved, ${fromFeeds} from ${plural(feeds, 'feed')}.`;
  if (stillQueued > 0) {
    line += ` ${stillQueued} more ${stillQueued === 1 ? 'is' : 'are'} waiting for the next digest.`;
  }
  return line;
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
  const after = itemsAfter(view);
  if (after === 0) return '';
  if (!view.laidOut) return `…and ${plural(after, 'more link', 'more links')}.`;
  const entries = plural(after, 'more entry', 'more entries');
  return where === 'email' ? `…and ${entries}, cut to keep this email whole.` : `…and ${entries}:`;
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
  const shown = view.groups.reduce((n, g) => n + g.items.length, 0);
  const minutes = readingMinutes(view, excerptLimit);
  return `${plural(shown, 'entry', 'entries')} · about ${plural(minutes, 'minute')} to read`;
}

/** "Links 201–400 of 10000", for a page of a digest's web page. */
export function shownLine(view: DigestView): string {
  const { first, last } = view.shown;
  return last < first ? `No links on this page` : `Links ${first}–${last} of ${view.counts.items}`;
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
