import { perDigestOf } from '../../lib/digestShare.js';
import type { WaitingItem } from '../../queue/take.js';
import type { DigestSection, FeedPriority } from '../../store/schema.js';
import { headlineOf, rarityOf } from './headlines.js';
import { type DeliveredItem, type StoryItem, deliveredBefore, deliveredIndex, storiesOf } from './stories.js';

/*
 * What a digest takes from a queue and how it lays it out (issue 24), pure: same queue, same digest.
 *
 * 1. The reader's own links first, oldest first, up to the account's max-items; the rest wait (`carried`).
 * 2. Every feed item waiting leaves with the digest: the web page lists them all; the email shows a few.
 * 3. Items that are one story (stories.ts) become one entry, the others of the story on its "Also in:"
 *    line. A saved link is its story's entry; else the item of the highest-priority feed, then the first
 *    published. A feed story an earlier digest (of the last three) delivered is not new: only counted.
 * 4. Top stories: up to TOP_STORIES stories that two or more feeds carry, most feeds first, open the feed
 *    part; each counts against the share of the feed whose item is its entry.
 * 5. Then a group per feed, high-priority feeds first, then by name. Each shows its fresh entries (published
 *    since the last digest, FRESH_SLACK_MS before it, or in the last FRESH_MS) up to its share: `per_digest`
 *    (DEFAULT_PER_DIGEST unless chosen; `all` shows all, 0 none), given out one entry per feed a round so
 *    that busy feeds cannot take the room of quiet ones, until the email has ENTRY_BUDGET entries. Low-
 *    priority feeds get a round only when every other feed's share is given; muted feeds none. The rest of a
 *    feed is one "+N more from" line in the email.
 * 6. Newsletters (source 'newsletter', src/newsletters/) are feeds of their own, one per sender, with the
 *    same share, priority, mute and "+N more from" line, in the same rounds; each is a story of its own
 *    (never another item's, never a top story), fresh when it arrived since the previous digest (or in the
 *    last FRESH_MS), and their groups come last, in the section "Newsletters".
 */

/** Top stories the feed part opens with, at most. */
export const TOP_STORIES = 5;
/** Entries an email shows, at most, beyond feeds set to `all` (and the saved links, which are always shown). */
export const ENTRY_BUDGET = 50;
/** A feed item counts as fresh when published in the last FRESH_MS… */
export const FRESH_MS = 30 * 60 * 60 * 1000;
/** …or since the previous digest was built, less this. */
export const FRESH_SLACK_MS = 6 * 60 * 60 * 1000;

export interface ChooseInput {
  /** The account's waiting items, oldest first. */
  waiting: readonly WaitingItem[];
  /** The account's max-items: how many of its own links one digest takes. */
  maxItems: number;
  /** Items the email showed in the account's last three digests. */
  delivered: readonly DeliveredItem[];
  /** When the account's previous digest was built; null for its first. */
  previousAt: string | null;
  now: Date;
}

/** One item of the digest, in the digest's order. */
export interface Placed {
  item: WaitingItem;
  section: DigestSection;
  /** The email shows it: an entry, or a source named on its entry's "Also in:" line. */
  shown: boolean;
  /** For another source of a story: the index (in `placed`) of the story's entry. */
  storyOf: number | null;
  /** The earlier digest that delivered its story, when it is not new. */
  seenIn: number | null;
}

export interface Choice {
  placed: Placed[];
  /** The reader's own links left waiting for the next digest (past max-items). */
  carried: number;
  /** Entries the email shows. */
  entries: number;
}

interface Story {
  members: WaitingItem[];
  lead: WaitingItem;
  feeds: Set<number>;
  seenIn: number | null;
  fresh: boolean;
  /** Milliseconds, of the lead. */
  at: number;
  section: DigestSection;
  shown: boolean;
}

const PRIORITY_RANK: Record<FeedPriority, number> = { high: 0, normal: 1, low: 2 };

function priorityOf(item: WaitingItem): FeedPriority {
  return item.priority ?? 'normal';
}

function timeOf(item: WaitingItem, now: number): number {
  const published = item.published_at === null ? NaN : Date.parse(item.published_at);
  const queued = Date.parse(item.created_at);
  const at = Number.isNaN(published) ? queued : Math.min(published, now);
  return Number.isNaN(at) ? now : at;
}

/** Chooses and lays out a digest of the waiting items. */
export function chooseDigest(input: ChooseInput): Choice {
  const now = input.now.getTime();
  const savedAll = input.waiting.filter((i) => i.source === 'api');
  const saved = savedAll.slice(0, Math.max(0, input.maxItems));
  const taken = [...saved, ...input.waiting.filter((i) => i.source !== 'api')];
  const previous = input.previousAt === null ? NaN : Date.parse(input.previousAt);
  const freshSince = Math.min(now - FRESH_MS, Number.isNaN(previous) ? Infinity : previous - FRESH_SLACK_MS);
  // Each item as story matching reads it, its headline parsed once for the whole build (issue 33).
  const storyItems = new Map(taken.map((i) => [i, storyItemOf(i, now)]));
  const stories = storiesOfItems(taken, storyItems, now);
  const delivered = deliveredIndex(input.delivered);
  const rare = rarityOf([
    ...delivered.map((d) => d.headline),
    ...[...storyItems.values()].map((i) => i.headline),
  ]);
  for (const story of stories) {
    story.fresh = story.members.some((m) => m.source === 'api' || freshAt(m, now) >= freshSince);
    if (story.lead.source !== 'feed') continue;
    // Delivered before when any of its items was: coverage of one story grows over the days.
    for (const m of story.members) {
      const item = storyItems.get(m);
      const seen = item === undefined ? null : deliveredBefore(item, delivered, rare);
      if (seen !== null && (story.seenIn === null || seen > story.seenIn)) story.seenIn = seen;
    }
  }
  const savedStories = stories.filter((s) => s.lead.source === 'api');
  for (const s of savedStories) {
    s.section = 'saved';
    s.shown = true;
  }
  const feedStories = stories.filter((s) => s.lead.source !== 'api');
  for (const s of feedStories) if (s.lead.source === 'newsletter') s.section = 'newsletters';
  const top = feedStories
    .filter(
      (s) =>
        s.lead.source === 'feed' && s.feeds.size >= 2 && s.fresh && s.seenIn === null && !allMuted(s, now),
    )
    .sort((a, b) => b.feeds.size - a.feeds.size || b.at - a.at)
    .slice(0, TOP_STORIES);
  const topLeads = new Map<number, number>();
  for (const s of top) {
    s.section = 'top';
    s.shown = true;
    // Its entry: a source of the highest priority whose feed leads the fewest top stories yet, so that
    // the top of the email is not one site's.
    const best = PRIORITY_RANK[priorityOf(s.lead)];
    const candidates = s.members.filter((m) => m.source !== 'api' && PRIORITY_RANK[priorityOf(m)] === best);
    candidates.sort(
      (a, b) =>
        (topLeads.get(a.feed_id ?? 0) ?? 0) - (topLeads.get(b.feed_id ?? 0) ?? 0) || leadOrder(a, b, now),
    );
    s.lead = candidates[0] ?? s.lead;
    s.at = timeOf(s.lead, now);
    if (s.lead.feed_id !== null) topLeads.set(s.lead.feed_id, (topLeads.get(s.lead.feed_id) ?? 0) + 1);
  }
  const groups = feedGroups(feedStories.filter((s) => s.section !== 'top'));
  // A top story's entry is its feed's: it counts against that feed's share.
  const led = new Map<number, number>();
  for (const s of top)
    if (s.lead.feed_id !== null) led.set(s.lead.feed_id, (led.get(s.lead.feed_id) ?? 0) + 1);
  shareOut(groups, savedStories.length + top.length, now, led);
  const placed: Placed[] = [];
  const place = (story: Story): void => {
    const lead = placed.length;
    placed.push({
      item: story.lead,
      section: story.section,
      shown: story.shown,
      storyOf: null,
      seenIn: story.seenIn,
    });
    const named = new Set<number | null>([story.lead.feed_id]);
    for (const m of story.members) {
      if (m === story.lead) continue;
      // Another feed's item is named on the "Also in:" line; a second item of a feed already named is not.
      const shown = story.shown && (m.feed_id === null || !named.has(m.feed_id));
      named.add(m.feed_id);
      placed.push({ item: m, section: story.section, shown, storyOf: lead, seenIn: story.seenIn });
    }
  };
  savedStories.forEach(place);
  top.forEach(place);
  // The feeds' groups, then the newsletters' (their section).
  const letters = (g: FeedGroup): number => (g.lead.source === 'newsletter' ? 1 : 0);
  for (const g of [...groups].sort((a, b) => letters(a) - letters(b))) {
    g.stories.filter((s) => s.shown).forEach(place);
    g.stories.filter((s) => !s.shown).forEach(place);
  }
  const entries = placed.filter((p) => p.shown && p.storyOf === null).length;
  return { placed, carried: savedAll.length - saved.length, entries };
}

function storyItemOf(item: WaitingItem, now: number): StoryItem {
  return {
    url: item.url,
    headline: headlineOf(item.title),
    feedId: item.source === 'api' ? null : item.feed_id,
    saved: item.source === 'api',
    canonicalUrl: item.canonical_url,
    at: timeOf(item, now),
    summary: item.summary,
  };
}

/** When an item counts as fresh from: a newsletter when it arrived, anything else when published. */
function freshAt(item: WaitingItem, now: number): number {
  if (item.source !== 'newsletter') return timeOf(item, now);
  const queued = Date.parse(item.created_at);
  return Number.isNaN(queued) ? now : queued;
}

/** The taken items as stories, in the order of their first item; a newsletter is a story of its own. */
function storiesOfItems(
  taken: readonly WaitingItem[],
  storyItems: ReadonlyMap<WaitingItem, StoryItem>,
  now: number,
): Story[] {
  const at = new Map(taken.map((item, i) => [item, i]));
  const matched = taken.filter((i) => i.source !== 'newsletter');
  const matchedRoots = storiesOf(matched.map((i) => storyItems.get(i) ?? storyItemOf(i, now)));
  const roots = taken.map((_, i) => i);
  matched.forEach((item, j) => {
    const self = at.get(item);
    const root = at.get(matched[matchedRoots[j] ?? j] ?? item);
    if (self !== undefined && root !== undefined) roots[self] = root;
  });
  const byRoot = new Map<number, WaitingItem[]>();
  taken.forEach((item, i) => {
    const root = roots[i] ?? i;
    const members = byRoot.get(root);
    if (members === undefined) byRoot.set(root, [item]);
    else members.push(item);
  });
  return [...byRoot.values()].flatMap((members) => {
    const lead = [...members].sort((a, b) => leadOrder(a, b, now))[0];
    if (lead === undefined) return [];
    const feeds = new Set(
      members.flatMap((m) => (m.source !== 'api' && m.feed_id !== null ? [m.feed_id] : [])),
    );
    const story: Story = {
      members,
      lead,
      feeds,
      seenIn: null,
      fresh: true,
      at: timeOf(lead, now),
      section: 'feed',
      shown: false,
    };
    return [story];
  });
}

/** A story's entry: a saved link (the oldest), else the highest-priority feed's item published first. */
function leadOrder(a: WaitingItem, b: WaitingItem, now: number): number {
  const saved = (a.source === 'api' ? 0 : 1) - (b.source === 'api' ? 0 : 1);
  if (saved !== 0) return saved;
  if (a.source === 'api') return a.id - b.id;
  return (
    PRIORITY_RANK[priorityOf(a)] - PRIORITY_RANK[priorityOf(b)] ||
    timeOf(a, now) - timeOf(b, now) ||
    a.id - b.id
  );
}

function mutedAt(item: WaitingItem, now: number): boolean {
  return item.muted_until !== null && Date.parse(item.muted_until) > now;
}

function allMuted(story: Story, now: number): boolean {
  return story.members.every((m) => m.source !== 'api' && mutedAt(m, now));
}

interface FeedGroup {
  lead: WaitingItem;
  stories: Story[];
}

/** One group per feed (an item whose feed was removed: per the name it had), in the order they are shown. */
function feedGroups(stories: readonly Story[]): FeedGroup[] {
  const byFeed = new Map<string, FeedGroup>();
  for (const s of stories) {
    const key = s.lead.feed_id === null ? `title:${s.lead.feed_title ?? ''}` : `id:${s.lead.feed_id}`;
    const group = byFeed.get(key);
    if (group === undefined) byFeed.set(key, { lead: s.lead, stories: [s] });
    else group.stories.push(s);
  }
  const groups = [...byFeed.values()];
  for (const g of groups) g.stories.sort(entryOrder);
  return groups.sort(
    (a, b) =>
      PRIORITY_RANK[priorityOf(a.lead)] - PRIORITY_RANK[priorityOf(b.lead)] ||
      titleCollator.compare(a.lead.feed_title ?? '', b.lead.feed_title ?? '') ||
      (a.lead.feed_id ?? 0) - (b.lead.feed_id ?? 0),
  );
}

const titleCollator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Within a feed: new before already delivered, fresh before old, more sources first, then newest. */
function entryOrder(a: Story, b: Story): number {
  return (
    (a.seenIn === null ? 0 : 1) - (b.seenIn === null ? 0 : 1) ||
    (a.fresh ? 0 : 1) - (b.fresh ? 0 : 1) ||
    b.feeds.size - a.feeds.size ||
    b.at - a.at
  );
}

/** Marks the entries each feed shows: shares given out a round at a time, as described above. */
function shareOut(
  groups: readonly FeedGroup[],
  used: number,
  now: number,
  led: ReadonlyMap<number, number>,
): void {
  let budget = ENTRY_BUDGET - used;
  const open = groups.map((g) => {
    const share = mutedAt(g.lead, now) ? 0 : perDigestOf(g.lead.per_digest ?? null);
    const candidates = g.stories.filter((s) => s.fresh && s.seenIn === null);
    const top = g.lead.feed_id === null ? 0 : (led.get(g.lead.feed_id) ?? 0);
    return { g, share, candidates, given: 0, top };
  });
  // Feeds set to `all` show every fresh entry, whatever the budget: the reader asked for them.
  for (const o of open) {
    if (o.share !== 'all') continue;
    for (const s of o.candidates) s.shown = true;
    o.given = o.candidates.length;
    budget -= o.given;
  }
  const rounds = (tier: typeof open): void => {
    let progress = true;
    while (budget > 0 && progress) {
      progress = false;
      for (const o of tier) {
        if (budget <= 0) break;
        if (o.share === 'all' || o.given + o.top >= o.share || o.given >= o.candidates.length) continue;
        const s = o.candidates[o.given];
        if (s !== undefined) s.shown = true;
        o.given++;
        budget--;
        progress = true;
      }
    }
  };
  rounds(open.filter((o) => priorityOf(o.g.lead) !== 'low'));
  rounds(open.filter((o) => priorityOf(o.g.lead) === 'low'));
}
