import { type Headline, type Rarity, headlineOf, rarityOf, sameStory, sharesNames } from './headlines.js';
import { pageKeyOf } from './pageKey.js';

/*
 * One story, one entry (issue 24): the items of a digest grouped into stories. Two items are one story
 * when they are the same page (pageKey.ts: the link once cleaned, or the canonical URL of the page read),
 * or, when they come from different feeds (or one is the reader's own link) within STORY_WINDOW_MS of each
 * other, when their headlines tell one story (headlines.ts: their words, or two rare names) or their
 * summaries carry the same run of SHARED_RUN_WORDS words (agency copy) under headlines that share
 * RUN_HEADLINE_WORDS words. Two of the reader's own links are never joined by their headlines: the person
 * saved both. Among many headlines, a word or name that many carry tells no story apart (headlines.ts
 * rarityOf).
 */

/** How far apart two items' times may be for their headlines to join them. */
export const STORY_WINDOW_MS = 48 * 60 * 60 * 1000;

/** What story matching needs of an item. */
export interface StoryItem {
  url: string;
  /** Its title as story matching reads it (headlines.ts headlineOf), parsed once by the caller. */
  headline: Headline;
  /** null for the reader's own links. */
  feedId: number | null;
  saved: boolean;
  /** The page's canonical URL, when it was read. */
  canonicalUrl: string | null;
  /** Milliseconds: when it was published (else queued). */
  at: number;
  /** The feed's summary, plain text; null for none. */
  summary?: string | null;
}

/** Words in a row two summaries must share to be one story's (agency copy that several sites carry). */
export const SHARED_RUN_WORDS = 8;
/** Significant words the headlines of two items joined by their summaries must share too. */
const RUN_HEADLINE_WORDS = 2;
/** A run of words more items than this carry is boilerplate, not a story's text. */
const RUN_MAX_ITEMS = 4;
/** Of a summary, the start read for runs. */
const SUMMARY_READ = 600;

function sharedWords(a: Headline | undefined, b: Headline | undefined): number {
  if (a === undefined || b === undefined) return 0;
  let shared = 0;
  for (const w of a.words) if (b.words.has(w)) shared++;
  return shared;
}

/** The runs of SHARED_RUN_WORDS words of a summary, lower case, one space apart. */
function runsOf(summary: string | null | undefined): Set<string> {
  const words =
    (summary ?? '')
      .slice(0, SUMMARY_READ)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const runs = new Set<string>();
  for (let i = 0; i + SHARED_RUN_WORDS <= words.length; i++)
    runs.add(words.slice(i, i + SHARED_RUN_WORDS).join(' '));
  return runs;
}

/** The keys of an item's page: its link's and its canonical URL's. */
export function pageKeysOf(item: Pick<StoryItem, 'url' | 'canonicalUrl'>): string[] {
  const keys = [pageKeyOf(item.url), item.canonicalUrl === null ? null : pageKeyOf(item.canonicalUrl)];
  return [...new Set(keys.filter((k): k is string => k !== null))];
}

class DisjointSets {
  private readonly parent: number[];
  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, i) => i);
  }
  find(i: number): number {
    let root = i;
    while (this.parent[root] !== root) root = this.parent[root] ?? root;
    let node = i;
    while (node !== root) {
      const next = this.parent[node] ?? root;
      this.parent[node] = root;
      node = next;
    }
    return root;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Whether two items' headlines may join them (not for two saved links, nor two items of one feed). */
function mayJoinByHeadline(a: StoryItem, b: StoryItem): boolean {
  if (a.saved && b.saved) return false;
  if (a.saved || b.saved) return true;
  return a.feedId !== b.feedId;
}

/**
 * The stories of `items`: for each item, the index of the first item of its story (itself when it is
 * the first). Pairs are compared only within STORY_WINDOW_MS of each other, in time order, so a backlog
 * of thousands of items costs what its busiest two days cost.
 */
export function storiesOf(items: readonly StoryItem[]): number[] {
  const sets = new DisjointSets(items.length);
  const byKey = new Map<string, number>();
  items.forEach((item, i) => {
    for (const key of pageKeysOf(item)) {
      const first = byKey.get(key);
      if (first === undefined) byKey.set(key, i);
      else sets.union(first, i);
    }
  });
  const headlines: Headline[] = items.map((item) => item.headline);
  const rare = rarityOf(headlines);
  // The same agency text in two feeds' summaries within the window, under headlines that share words of
  // their own: one story (text alone may be boilerplate that several sites carry).
  const byRun = new Map<string, number[]>();
  items.forEach((item, i) => {
    for (const run of runsOf(item.summary)) {
      const carriers = byRun.get(run);
      if (carriers === undefined) byRun.set(run, [i]);
      else if (carriers.length <= RUN_MAX_ITEMS) carriers.push(i);
    }
  });
  for (const carriers of byRun.values()) {
    if (carriers.length < 2 || carriers.length > RUN_MAX_ITEMS) continue;
    for (const j of carriers.slice(1)) {
      const [a, b] = [items[carriers[0] ?? 0], items[j]];
      if (
        a !== undefined &&
        b !== undefined &&
        mayJoinByHeadline(a, b) &&
        Math.abs(timeOf(a) - timeOf(b)) <= STORY_WINDOW_MS &&
        sharedWords(headlines[carriers[0] ?? 0], headlines[j]) >= RUN_HEADLINE_WORDS
      )
        sets.union(carriers[0] ?? 0, j);
    }
  }

  const order = items.map((_, i) => i).sort((a, b) => timeOf(items[a]) - timeOf(items[b]) || a - b);
  for (let x = 0; x < order.length; x++) {
    const i = order[x] ?? 0;
    const a = items[i];
    const ha = headlines[i];
    if (a === undefined || ha === undefined || ha.words.size === 0) continue;
    for (let y = x + 1; y < order.length; y++) {
      const j = order[y] ?? 0;
      const b = items[j];
      const hb = headlines[j];
      if (b === undefined || hb === undefined) continue;
      if (timeOf(b) - timeOf(a) > STORY_WINDOW_MS) break;
      if (mayJoinByHeadline(a, b) && (sameStory(ha, hb, rare) || sharesNames(ha, hb, rare))) sets.union(i, j);
    }
  }
  return items.map((_, i) => sets.find(i));
}

function timeOf(item: StoryItem | undefined): number {
  return item === undefined || Number.isNaN(item.at) ? 0 : item.at;
}

/** An earlier digest's shown item, for "not shown again as new". */
export interface DeliveredItem {
  digestId: number;
  url: string;
  title: string;
  canonicalUrl: string | null;
  at: number;
}

/**
 * Which earlier digest (if any) delivered the story of `item`: the same page, or a headline telling the
 * same story within STORY_WINDOW_MS. The most recent such digest; null when none did.
 */
export function deliveredBefore(
  item: StoryItem,
  delivered: readonly { item: DeliveredItem; keys: string[]; headline: Headline }[],
  rare: Rarity,
): number | null {
  const keys = pageKeysOf(item);
  const headline = item.headline;
  let found: number | null = null;
  for (const d of delivered) {
    const same =
      d.keys.some((k) => keys.includes(k)) ||
      (Math.abs(d.item.at - item.at) <= STORY_WINDOW_MS &&
        (sameStory(d.headline, headline, rare) || sharesNames(d.headline, headline, rare)));
    if (same && (found === null || d.item.digestId > found)) found = d.item.digestId;
  }
  return found;
}

/** The earlier digests' items, read once for deliveredBefore. */
export function deliveredIndex(items: readonly DeliveredItem[]) {
  return items.map((item) => ({ item, keys: pageKeysOf(item), headline: headlineOf(item.title) }));
}
