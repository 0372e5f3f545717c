/**
 * bench:digest-quality's scenario, generated from a seed (the same seed, the same scenario): 60 feeds (4
 * news sites at about 30 items a day, 12 daily sites at about 3, 44 blogs posting every 3 to 7 days), ten
 * big stories a day each covered by 2 to 4 of the news and daily sites under their own URLs and headlines,
 * and each morning's 4 saved links, one of them a feed item's URL without its `?ref=rss`. Every item knows
 * its story (the ground truth the bench counts repeats by). Times are milliseconds since the epoch.
 */
import { type Pick, bigStories, ordinaryItem } from './digest-quality-headlines.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export type FeedKind = 'news' | 'daily' | 'blog';

export interface ScenarioFeed {
  index: number;
  kind: FeedKind;
  title: string;
  /** The path the loopback feed server answers it at. */
  path: string;
  format: 'rss' | 'atom';
  /** Items the document lists (the newest ones). */
  window: number;
  /** Items of this feed, oldest first. */
  items: ScenarioItem[];
}

export interface ScenarioItem {
  id: string;
  feed: number;
  /** The link as the feed gives it (tracking parameters included). */
  url: string;
  title: string;
  summary: string;
  published: number;
  /** The ground truth: the big story's id, or the item's own. */
  story: string;
}

export interface ScenarioSave {
  /** When it is saved (the morning of `day`, before the digest). */
  at: number;
  day: number;
  url: string;
  title: string;
  variant: 'A' | 'B';
  story: string;
}

export interface Scenario {
  start: number;
  days: number;
  feeds: ScenarioFeed[];
  saves: ScenarioSave[];
  /** Every item by the bench's URL key (urlKey). */
  byKey: Map<string, ScenarioItem>;
}

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number): Pick & { next(): number } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    one<T>(list: readonly T[]): T {
      const v = list[int(0, list.length - 1)];
      if (v === undefined) throw new Error('one() of an empty list');
      return v;
    },
  };
}

/** Parameters that only say where a click came from (the bench's own list, to match URLs by). */
const NOISE = /^(utm_.*|ref|source|via|fbclid)$/i;

/** A URL without tracking parameters or fragment: how the bench matches links across feeds, e-mails, pages. */
export function urlKey(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw;
  }
  for (const name of [...u.searchParams.keys()]) if (NOISE.test(name)) u.searchParams.delete(name);
  u.hash = '';
  return u.toString().replace(/\?$/, '');
}

const NEWS = ['The Morning Ledger', 'Daily Courier', 'Global Wire', 'The Evening Post'];
const DAILY = [
  'Harbour Times',
  'Valley Gazette',
  'North Star',
  'The Civic Review',
  'Metro Bulletin',
  'Lakeside Journal',
  'The Observer Online',
  'Coastline News',
  'Market Street',
  'The Weekly Standard Daily',
  'Plains Herald',
  'Riverside Chronicle',
];
/** What each site adds to its links: most nothing; some the tracking parameters feeds are known for. */
const TRACKING: Record<string, string> = {
  'news-0': '?utm_source=rss&utm_medium=feed',
  'news-2': '?ref=rss',
  'daily-0': '?ref=rss',
  'daily-3': '?utm_source=feedburner&utm_medium=feed&utm_campaign=Feed%3A+daily',
  'blog-5': '?utm_source=rss',
  'blog-17': '?ref=rss',
};
/** News sites' posting by hour of day (UTC): mostly by day, a little at night. */
const NEWS_HOURS = [1, 1, 1, 1, 2, 3, 5, 7, 8, 8, 8, 7, 7, 7, 7, 7, 7, 6, 6, 5, 4, 3, 2, 1];
const slug = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

function hourOfDay(p: Pick, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = p.int(0, total - 1);
  for (let h = 0; h < weights.length; h++) {
    r -= weights[h] ?? 0;
    if (r < 0) return h;
  }
  return 12;
}

/**
 * The scenario for `days` digests: feeds' history from a week before `start` (a feed's document is never
 * empty, its posting rate known) to the last digest. Day d's digest is built at start + d days + 7 h.
 */
export function makeScenario(seed: number, days: number, start: number): Scenario {
  const p = prng(seed);
  const feeds: ScenarioFeed[] = [];
  const add = (kind: FeedKind, title: string, n: number): void => {
    const index = feeds.length;
    feeds.push({
      index,
      kind,
      title,
      path: `/feeds/${kind}-${n}.${index % 3 === 2 ? 'atom' : 'xml'}`,
      format: index % 3 === 2 ? 'atom' : 'rss',
      window: kind === 'news' ? 50 : 20,
      items: [],
    });
  };
  NEWS.forEach((t, i) => add('news', t, i));
  DAILY.forEach((t, i) => add('daily', t, i));
  for (let i = 0; i < 44; i++)
    add('blog', `${p.one(['Field', 'Margin', 'Quiet', 'Slow', 'Plain'])} Notes ${i + 1}`, i);
  const domain = (f: ScenarioFeed): string => `${slug(f.title)}.example`;
  const tracking = (f: ScenarioFeed): string =>
    TRACKING[`${f.kind}-${f.path.replace(/^.*-(\d+)\..*$/, '$1')}`] ?? '';
  let counter = 0;
  const item = (f: ScenarioFeed, at: number, text: { title: string; summary: string }, story?: string) => {
    const id = `i${++counter}`;
    const d = new Date(at);
    const path = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${slug(text.title)}-${counter}`;
    f.items.push({
      id,
      feed: f.index,
      url: `https://www.${domain(f)}/${path}${tracking(f)}`,
      ...text,
      published: at,
      story: story ?? id,
    });
  };
  const sites = feeds.filter((f) => f.kind !== 'blog');
  const first = start - 7 * DAY;
  const end = start + days * DAY + 7 * HOUR;
  // Big stories: ten a day, each covered by 2–4 sites (news sites three times as likely) within 5 h.
  for (let day = first; day < end; day += DAY) {
    const dayStories = bigStories(p, 10);
    const covered = new Map<number, number>();
    dayStories.forEach((story, s) => {
      const breaks = day + p.int(5 * 60, 21 * 60) * 60_000;
      const k = p.int(2, 4);
      const chosen = new Set<ScenarioFeed>();
      while (chosen.size < k) {
        const f = p.int(0, 3) === 0 ? p.one(sites.slice(4)) : p.one(sites.slice(0, 4));
        chosen.add(f);
      }
      [...chosen].forEach((f, v) => {
        const version = story.versions[v] ?? story.versions[0];
        if (version === undefined) return;
        item(f, breaks + p.int(0, 300) * 60_000, version, `s${(day - first) / DAY}-${s}`);
        covered.set(f.index, (covered.get(f.index) ?? 0) + 1);
      });
    });
    // The rest of each site's day, up to its rate.
    for (const f of sites) {
      const rate = f.kind === 'news' ? p.int(27, 33) : p.int(2, 4);
      for (let n = covered.get(f.index) ?? 0; n < rate; n++) {
        const hour = f.kind === 'news' ? hourOfDay(p, NEWS_HOURS) : p.int(7, 19);
        item(f, day + hour * HOUR + p.int(0, 59) * 60_000, ordinaryItem(p, false));
      }
    }
  }
  // Blogs: each its own cadence of 3 to 7 days.
  for (const f of feeds.filter((g) => g.kind === 'blog')) {
    const every = p.int(3, 7);
    for (let day = first - p.int(0, every - 1) * DAY; day < end; day += every * DAY) {
      item(f, day + p.int(7, 22) * HOUR + p.int(0, 59) * 60_000, ordinaryItem(p, true));
    }
  }
  for (const f of feeds) f.items.sort((a, b) => a.published - b.published);
  const byKey = new Map<string, ScenarioItem>();
  for (const f of feeds) for (const i of f.items) byKey.set(urlKey(i.url), i);
  return { start, days, feeds, saves: makeSaves(p, feeds, days, start), byKey };
}

const SAVED_SITES = ['longreads.example', 'essays.example', 'research-notes.example', 'magazine.example'];
const SAVE_TIMES = [6 * HOUR, 6 * HOUR + 20 * 60_000, 6 * HOUR + 40 * 60_000, 6 * HOUR + 50 * 60_000];

/**
 * Each morning's 4 saves (before the 07:00 digest), two through each API variant: three articles no feed
 * carries, and one a `?ref=rss` site published since the day before, saved without the `?ref=rss`.
 */
function makeSaves(p: Pick, feeds: ScenarioFeed[], days: number, start: number): ScenarioSave[] {
  const saves: ScenarioSave[] = [];
  const refFeeds = feeds.filter((f) => f.kind !== 'blog' && f.items.some((i) => i.url.endsWith('?ref=rss')));
  for (let day = 1; day <= days; day++) {
    const morning = start + day * DAY;
    // A feed item published between yesterday's digest and 05:00 today: polled before it is saved.
    const candidates = refFeeds
      .flatMap((f) => f.items)
      .filter((i) => i.published > morning - 17 * HOUR && i.published <= morning + 5 * HOUR);
    const bigOnes = candidates.filter((i) => i.story !== i.id);
    const shared = p.one(bigOnes.length > 0 ? bigOnes : candidates);
    const sharedAt = p.int(0, 3);
    SAVE_TIMES.forEach((offset, n) => {
      const variant = n % 2 === 0 ? 'A' : 'B';
      if (n === sharedAt) {
        const url = shared.url.replace(/\?ref=rss$/, '');
        saves.push({ at: morning + offset, day, url, title: shared.title, variant, story: shared.story });
        return;
      }
      const { title } = ordinaryItem(p, p.int(0, 1) === 0);
      const url = `https://${p.one(SAVED_SITES)}/${day}/${n}/${slug(title)}`;
      saves.push({ at: morning + offset, day, url, title, variant, story: `saved-${day}-${n}` });
    });
  }
  return saves;
}
