import { displayFeedTitle } from '../lib/display.js';
import type { DigestSection } from '../store/schema.js';
import type { DigestGroup, DigestItemRow, DigestItemView } from './view.js';

/*
 * How a view groups the rows it shows. A digest built since migration 0025 was laid out by its build
 * (choose/choose.ts): its rows come in their order, each with its section, and another source of a story
 * names its entry (`story_of`); the view keeps that order, puts each source on its entry's "Also in:"
 * line (and a saved link's own feed, when a feed queued it before the reader saved it: queue/plan.ts),
 * and adds the "+N more from" line of each feed the email only counts. A digest built before has
 * no section: "Saved" first, then one group per feed by name, newest first, as it was always shown.
 */

/** What the email only counts of a feed: its entries past the feed's share, and where the web page lists them. */
export interface CollapsedGroup {
  feedId: number | null;
  feedTitle: string | null;
  /** Where they sit: a feed's group, or a newsletter sender's ('newsletters'); null or absent: a feed's. */
  section?: DigestSection | null;
  entries: number;
  firstPosition: number;
}

export interface LaidOutRow {
  row: DigestItemRow;
  item: DigestItemView;
  /** The row's position in the digest. */
  position: number;
}

/** The group key of a row of a feed: its feed, else (a feed since removed) the name it had. */
export function feedGroupOf(row: Pick<DigestItemRow, 'feed_id' | 'feed_title'>): {
  key: string;
  title: string;
} {
  const title = displayFeedTitle(row.feed_title) || 'Other feeds';
  return { key: row.feed_id === null ? `title:${title}` : `id:${row.feed_id}`, title };
}

type GroupShell = DigestGroup & { first: number };

/** The groups of rows laid out by their build (rows in position order). */
export function laidOutGroups(
  rows: readonly LaidOutRow[],
  collapsed: readonly CollapsedGroup[],
  moreHref: (position: number) => string,
): DigestGroup[] {
  const groups = new Map<string, GroupShell>();
  const entries = new Map<number, DigestItemView>();
  const groupOf = (
    key: string,
    shell: () => Omit<GroupShell, 'items' | 'more' | 'actions' | 'muted'>,
  ): GroupShell => {
    let g = groups.get(key);
    if (g === undefined) {
      g = { ...shell(), items: [], more: null, actions: null, muted: null };
      groups.set(key, g);
    }
    return g;
  };
  for (const { row, item, position } of rows) {
    const lead = row.story_of === null || row.story_of === undefined ? undefined : entries.get(row.story_of);
    if (lead !== undefined) {
      // Another source of a story whose entry this view shows: named on the entry's "Also in:" line (an
      // email reads only the sources it names; the web page lists every one).
      lead.alsoIn.push({ title: feedGroupOf(row).title, href: item.href });
      continue;
    }
    entries.set(position, item);
    const section = row.section ?? (row.source === 'api' ? 'saved' : 'feed');
    // A link the reader saved that a feed had queued first is one item, the reader's, that still knows
    // its feed: named on its "Also in:" line, with no second link to the same page.
    if (row.source === 'api' && (row.feed_id !== null || row.feed_title !== null))
      item.alsoIn.push({ title: feedGroupOf(row).title, href: null });
    if (section === 'saved' || section === 'top') {
      const title = section === 'saved' ? 'Saved' : 'Top stories';
      groupOf(section, () => ({ kind: section, title, feedId: null, first: position })).items.push(item);
      continue;
    }
    const { key, title } = feedGroupOf(row);
    const kind = section === 'newsletters' ? 'newsletter' : 'feed';
    groupOf(`${kind}:${key}`, () => ({ kind, title, feedId: row.feed_id, first: position })).items.push(item);
  }
  for (const c of collapsed) {
    const { key, title } = feedGroupOf({ feed_id: c.feedId, feed_title: c.feedTitle });
    const kind = c.section === 'newsletters' ? 'newsletter' : 'feed';
    const g = groupOf(`${kind}:${key}`, () => ({ kind, title, feedId: c.feedId, first: c.firstPosition }));
    g.more = { count: c.entries, href: moreHref(c.firstPosition) };
  }
  return [...groups.values()]
    .sort((a, b) => a.first - b.first)
    .map((g): DigestGroup => ({
      kind: g.kind,
      title: g.title,
      feedId: g.feedId,
      items: g.items,
      more: g.more,
      actions: g.actions,
      muted: g.muted,
    }));
}

/** The groups of a digest built before migration 0025: "Saved", then the feeds by name, newest first. */
export function legacyGroups(rows: readonly LaidOutRow[]): DigestGroup[] {
  const saved: DigestItemView[] = [];
  const feeds = new Map<string, { title: string; feedId: number | null; rows: LaidOutRow[] }>();
  for (const r of rows) {
    if (r.row.source === 'api') {
      saved.push(r.item);
      continue;
    }
    const { key, title } = feedGroupOf(r.row);
    let group = feeds.get(key);
    if (group === undefined) {
      group = { title, feedId: r.row.feed_id, rows: [] };
      feeds.set(key, group);
    }
    group.rows.push(r);
  }
  const feedGroups: DigestGroup[] = [...feeds.values()]
    .sort((a, b) => compareTitles(a.title, b.title) || (a.feedId ?? Infinity) - (b.feedId ?? Infinity))
    .map((g) => ({
      kind: 'feed',
      title: g.title,
      feedId: g.feedId,
      items: g.rows.sort(newestFirst).map((r) => r.item),
      more: null,
      actions: null,
      muted: null,
    }));
  return saved.length > 0
    ? [
        { kind: 'saved', title: 'Saved', feedId: null, items: saved, more: null, actions: null, muted: null },
        ...feedGroups,
      ]
    : feedGroups;
}

function atOf(r: LaidOutRow): number {
  const at = Date.parse(r.row.published_at ?? r.row.queued_at);
  return Number.isNaN(at) ? -Infinity : at;
}

function newestFirst(a: LaidOutRow, b: LaidOutRow): number {
  const d = atOf(b) - atOf(a);
  return (Number.isNaN(d) ? 0 : d) || a.position - b.position;
}

// Made at the first comparison, not at start: a collator loads ICU's collation data (issue 26).
let titleCollator: Intl.Collator | undefined;

function compareTitles(a: string, b: string): number {
  titleCollator ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return titleCollator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
