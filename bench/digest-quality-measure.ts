/**
 * bench:digest-quality's figures of one digest, from what the pipeline produced: its rows (digest_items:
 * shown = 1 and story_of null is an entry of the e-mail), the raw message the SMTP server received, and
 * the digest's web pages as served. Links are matched by the scenario's urlKey (without tracking
 * parameters), stories by the scenario's ground truth.
 */
import { decodeHTML } from 'entities';
import { simpleParser } from 'mailparser';
import { HOUR, type Scenario, type ScenarioSave, urlKey } from './digest-quality-scenario.js';

export interface DigestRowItem {
  position: number;
  url: string;
  source: string;
  feed_id: number | null;
  published_at: string | null;
  shown: number;
  story_of: number | null;
}

/** What the simulation collected for one day's digest. */
export interface DayCapture {
  day: number;
  digestId: number;
  /** Simulated build time (ms). */
  builtAt: number;
  /** The previous digest's build time (ms); the subscription's time for the first. */
  previousBuild: number;
  items: DigestRowItem[];
  raw: Buffer;
  webPages: string[];
  queueAfter: number;
  queueBefore: number;
}

export interface DayFigures {
  day: number;
  saves: number;
  savedInEmail: number;
  /** Hours from publication to the build, of the e-mail's feed entries. */
  ages: number[];
  /** The same of every feed item that arrived since the previous digest: a digest of what is new. */
  arrivedAges: number[];
  top3: number;
  entries: number;
  repeats: number;
  backlogChange: number;
  queueAfter: number;
  newItems: number;
  newOnWeb: number;
  /** Published since the previous digest but not yet fetched by the build (not counted). */
  notYetFetched: number;
  htmlBytes: number;
  textMismatches: number;
  alsoInLines: number;
  moreLines: number;
  items: number;
  webPages: number;
}

interface MimePart {
  type: string;
  /** The body as it travelled (transfer-encoded), one char per byte. */
  body: string;
}

/** The leaf parts of a MIME entity (read as latin1, so lengths are bytes). */
export function mimeParts(entity: string): MimePart[] {
  const split = entity.indexOf('\r\n\r\n');
  const head = (split === -1 ? entity : entity.slice(0, split)).replace(/\r\n[ \t]+/g, ' ');
  const body = split === -1 ? '' : entity.slice(split + 4);
  const contentType = /^content-type:\s*([^\r\n]*)/im.exec(head)?.[1] ?? 'text/plain';
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(contentType)?.[1];
  if (!type.startsWith('multipart/') || boundary === undefined) return [{ type, body }];
  const chunks = body.split(`\r\n--${boundary}`);
  // The first chunk is the preamble up to the first delimiter (which may open the body); the last ends "--".
  const first = chunks[0]?.startsWith(`--${boundary}`) === true ? chunks[0].slice(boundary.length + 2) : null;
  const inner = [...(first === null ? [] : [first]), ...chunks.slice(1)].filter((c) => !c.startsWith('--'));
  return inner.map((c) => c.replace(/^[ \t]*\r\n/, '')).flatMap(mimeParts);
}

/** The bytes of the e-mail's HTML part as sent (transfer-encoded). */
export function htmlBytesOf(raw: Buffer): number {
  const html = mimeParts(raw.toString('latin1')).find((p) => p.type === 'text/html');
  if (html === undefined) throw new Error('the e-mail has no text/html part');
  return html.body.length;
}

const linksOf = (text: string): Set<string> =>
  new Set([...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => urlKey(m[0])));

const hrefsOf = (html: string): Set<string> =>
  new Set([...html.matchAll(/href="([^"]*)"/g)].map((m) => urlKey(decodeHTML(m[1] ?? ''))));

/** The web page of the digest the e-mail links to, when its text gives one. */
export async function webLinkOf(raw: Buffer, digestId: number): Promise<string | null> {
  const { text } = await simpleParser(raw);
  const m = new RegExp(`https?://\\S+/digests/${digestId}\\?token=[\\w-]+`).exec(text ?? '');
  return m?.[0] ?? null;
}

/**
 * The figures of each captured day, in order. Repeats count, by ground-truth story, an entry whose story
 * was an entry before: in an earlier e-mail (from the first digest on) or earlier in the same one.
 */
export async function figuresOf(scenario: Scenario, days: DayCapture[], arrived: Map<string, number>) {
  const storyOfSave = new Map(scenario.saves.map((s) => [urlKey(s.url), s.story]));
  const storyOf = (url: string): string => {
    const key = urlKey(url);
    return scenario.byKey.get(key)?.story ?? storyOfSave.get(key) ?? key;
  };
  const shownBefore = new Set<string>();
  const items = scenario.feeds.flatMap((f) => f.items);
  const out: DayFigures[] = [];
  for (const d of days) {
    const entries = d.items.filter((i) => i.shown === 1 && i.story_of === null);
    const entryKeys = new Set(entries.map((e) => urlKey(e.url)));
    const saves: ScenarioSave[] = scenario.saves.filter((s) => s.day === d.day);
    const ages = entries
      .filter((e) => e.source === 'feed')
      .map((e) => {
        const published = scenario.byKey.get(urlKey(e.url))?.published ?? Date.parse(e.published_at ?? '');
        return (d.builtAt - published) / HOUR;
      })
      .filter((h) => Number.isFinite(h));
    const perFeed = new Map<number, number>();
    for (const e of entries)
      if (e.feed_id !== null) perFeed.set(e.feed_id, (perFeed.get(e.feed_id) ?? 0) + 1);
    const top3 = [...perFeed.values()]
      .sort((a, b) => b - a)
      .slice(0, 3)
      .reduce((a, b) => a + b, 0);
    let repeats = 0;
    for (const e of entries) {
      const story = storyOf(e.url);
      if (shownBefore.has(story)) repeats++;
      shownBefore.add(story);
    }
    const web = new Set<string>();
    for (const page of d.webPages) for (const h of hrefsOf(page)) web.add(h);
    const published = items.filter((i) => i.published > d.previousBuild && i.published <= d.builtAt);
    const fetched = published.filter((i) => (arrived.get(i.id) ?? Infinity) <= d.builtAt);
    const arrivedAges = items
      .filter((i) => {
        const at = arrived.get(i.id);
        return at !== undefined && at > d.previousBuild && at <= d.builtAt;
      })
      .map((i) => (d.builtAt - i.published) / HOUR);
    const { text } = await simpleParser(d.raw);
    const textLinks = linksOf(text ?? '');
    const lines = (text ?? '').split('\n').map((l) => l.trim());
    out.push({
      day: d.day,
      saves: saves.length,
      savedInEmail: saves.filter((s) => entryKeys.has(urlKey(s.url))).length,
      ages,
      arrivedAges,
      top3: entries.length === 0 ? 0 : (100 * top3) / entries.length,
      entries: entries.length,
      repeats,
      backlogChange: d.queueAfter - d.queueBefore,
      queueAfter: d.queueAfter,
      newItems: fetched.length,
      newOnWeb: fetched.filter((i) => web.has(urlKey(i.url))).length,
      notYetFetched: published.length - fetched.length,
      htmlBytes: htmlBytesOf(d.raw),
      textMismatches: entries.filter((e) => !textLinks.has(urlKey(e.url))).length,
      alsoInLines: lines.filter((l) => l.startsWith('Also in:')).length,
      moreLines: lines.filter((l) => /^\+\d+ more from /.test(l)).length,
      items: d.items.length,
      webPages: d.webPages.length,
    });
  }
  return out;
}

/** The p-th percentile (0–100) by nearest rank; NaN of nothing. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
