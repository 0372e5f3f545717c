/**
 * Generated feed documents for bench/feeds-parse.ts and bench/feeds-server.ts, and the fixture feeds'
 * layout: nothing is committed, every document is built here from a seeded generator, so the same seed
 * gives the same bytes on every run.
 *
 * The items look like what real blogs and news sites publish: titles with entities ("Q&amp;A", "&#8217;"),
 * absolute links, guids (some isPermaLink="false"), RFC 822 / RFC 3339 dates, dc:creator, categories,
 * HTML descriptions escaped as entities or wrapped in CDATA (a third of them), a content:encoded body on
 * some and a podcast enclosure on a few.
 */

/** mulberry32: a small, fast, seeded PRNG; good enough to vary text, not for anything else. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a of to and in is for on with that release notes update server feed reader digest quietly ' +
  'performance database query index migration postgres sqlite node typescript parser stream buffer ' +
  'morning evening garden river city council budget library museum season weather forecast market ' +
  'research paper model design interview review podcast episode chapter draft version security patch ' +
  'café naïve résumé über façade'
).split(' ');
const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Émile Zola', 'Mary Shelley', "Dara O'Brien", 'Li Wei'];
const CATEGORIES = ['News', 'Releases', 'Q&A', 'Tips & Tricks', 'Community', 'Security'];
const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
const DAYS = 'Sun Mon Tue Wed Thu Fri Sat'.split(' ');

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
const words = (rng: Rng, n: number): string => Array.from({ length: n }, () => pick(rng, WORDS)).join(' ');
const pad = (n: number): string => String(n).padStart(2, '0');

/** XML character data: what a publisher's template escapes. */
export const xmlEscape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function rfc822(d: Date): string {
  return (
    `${DAYS[d.getUTCDay()] ?? 'Mon'}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()] ?? 'Jan'} ` +
    `${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`
  );
}

/** A title as it sits in the XML: entities for "&", curly quotes as numeric references, now and then. */
function titleXml(rng: Rng, n: number): string {
  const base = `${words(rng, 3 + Math.floor(rng() * 6))} #${n}`;
  const r = rng();
  if (r < 0.15) return `${xmlEscape(base)} &amp; more`;
  if (r < 0.3) return `It&#8217;s ${xmlEscape(base)}`;
  if (r < 0.4) return `&#x201C;${xmlEscape(base)}&#x201D;`;
  return xmlEscape(base);
}

/** An HTML fragment of a few paragraphs, with links, emphasis, an image and HTML entities. */
function htmlBody(rng: Rng, paragraphs: number, n: number): string {
  const parts: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const r = rng();
    const text = words(rng, 20 + Math.floor(rng() * 40));
    if (r < 0.25) {
      parts.push(
        `<p>${text} <a href="https://example.org/${n}/ref/${p}?utm_source=feed&amp;x=1">read more</a>&nbsp;&mdash; ok</p>`,
      );
    } else if (r < 0.4) {
      parts.push(`<p><em>${text}</em> &ldquo;quoted&rdquo; &amp; <strong>bold</strong> &hellip;</p>`);
    } else if (r < 0.5) {
      parts.push(
        `<figure><img src="/img/${n}-${p}.jpg" alt="${words(rng, 3)}"><figcaption>${text}</figcaption></figure>`,
      );
    } else if (r < 0.6) {
      parts.push(
        `<ul><li>${words(rng, 6)}</li><li>${words(rng, 6)} &lt;tag&gt;</li><li>${words(rng, 4)}</li></ul>`,
      );
    } else {
      parts.push(`<p>${text} &copy; 2024 &#169; caf&eacute;</p>`);
    }
  }
  return parts.join('\n');
}

/** An HTML fragment as RSS carries it: escaped as character data, or (a third of the time) in CDATA. */
function htmlInXml(rng: Rng, html: string): string {
  return rng() < 0.34 ? `<![CDATA[${html}]]>` : xmlEscape(html);
}

export interface RssOptions {
  seed: number;
  items: number;
  /** Paragraphs per description; content:encoded (on a quarter of the items) has twice as many. */
  paragraphs: number;
  /** The first (newest) item's number and date; item k counts down from it, an hour apart. */
  newest: number;
  newestDate: Date;
  site: string;
  title: string;
}

/** Each item's text depends only on the seed and its number: a feed that gains items keeps the old ones. */
const itemRng = (seed: number, n: number): Rng => seeded(Math.imul(seed, 0x9e3779b1) ^ n);

export function rssDocument(o: RssOptions): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" ' +
      'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">',
    '<channel>',
    `<title>${xmlEscape(o.title)}</title>`,
    `<link>${o.site}/</link>`,
    `<atom:link href="${o.site}/feed.xml" rel="self" type="application/rss+xml"/>`,
    `<description>Notes &amp; news from ${xmlEscape(o.title)}</description>`,
    '<language>en-us</language>',
    `<lastBuildDate>${rfc822(o.newestDate)}</lastBuildDate>`,
    '<generator>bench/feeds-corpus.ts</generator>',
  ];
  for (let i = 0; i < o.items; i++) {
    const n = o.newest - i;
    const date = new Date(o.newestDate.getTime() - i * 3_600_000);
    const slug = `${date.getUTCFullYear()}/${pad(date.getUTCMonth() + 1)}/post-${n}`;
    const rng = itemRng(o.seed, n);
    const permalink = rng() < 0.7;
    out.push('<item>');
    out.push(`<title>${titleXml(rng, n)}</title>`);
    out.push(`<link>${o.site}/${slug}.html</link>`);
    out.push(
      permalink
        ? `<guid isPermaLink="true">${o.site}/${slug}.html</guid>`
        : `<guid isPermaLink="false">tag:${new URL(o.site).host},2024:post-${n}</guid>`,
    );
    out.push(`<pubDate>${rfc822(date)}</pubDate>`);
    out.push(`<dc:creator>${xmlEscape(pick(rng, AUTHORS))}</dc:creator>`);
    out.push(`<category>${xmlEscape(pick(rng, CATEGORIES))}</category>`);
    out.push(`<description>${htmlInXml(rng, htmlBody(rng, o.paragraphs, n))}</description>`);
    if (rng() < 0.25) {
      out.push(`<content:encoded>${htmlInXml(rng, htmlBody(rng, o.paragraphs * 2, n))}</content:encoded>`);
    }
    if (rng() < 0.1) {
      const length = 1_000_000 + Math.floor(rng() * 50_000_000);
      out.push(`<enclosure url="${o.site}/audio/${n}.mp3" length="${length}" type="audio/mpeg"/>`);
    }
    out.push('</item>');
  }
  out.push('</channel>', '</rss>', '');
  return out.join('\n');
}

export function atomDocument(o: RssOptions): string {
  const feedRng = seeded(o.seed);
  const host = new URL(o.site).host;
  const out: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `<title type="text">${xmlEscape(o.title)}</title>`,
    `<subtitle type="html">Notes &amp;amp; news</subtitle>`,
    `<link rel="alternate" type="text/html" href="${o.site}/"/>`,
    `<link rel="self" type="application/atom+xml" href="${o.site}/atom.xml"/>`,
    `<id>tag:${host},2024:feed</id>`,
    `<updated>${o.newestDate.toISOString()}</updated>`,
    `<author><name>${xmlEscape(pick(feedRng, AUTHORS))}</name></author>`,
    '<generator uri="https://example.org/" version="1.0">bench</generator>',
  ];
  for (let i = 0; i < o.items; i++) {
    const n = o.newest - i;
    const date = new Date(o.newestDate.getTime() - i * 3_600_000);
    const slug = `${date.getUTCFullYear()}/${pad(date.getUTCMonth() + 1)}/post-${n}`;
    const rng = itemRng(o.seed, n);
    out.push('<entry>');
    out.push(
      rng() < 0.3
        ? `<title type="html">${xmlEscape(`<em>${words(rng, 4)}</em> &amp; ${words(rng, 3)} #${n}`)}</title>`
        : `<title>${titleXml(rng, n)}</title>`,
    );
    out.push(`<link rel="alternate" type="text/html" href="${o.site}/${slug}.html"/>`);
    out.push(`<id>tag:${host},2024:post-${n}</id>`);
    out.push(`<published>${date.toISOString().replace('.000Z', 'Z')}</published>`);
    out.push(
      `<updated>${new Date(date.getTime() + 600_000).toISOString().replace('.000Z', '+00:00')}</updated>`,
    );
    out.push(`<author><name>${xmlEscape(pick(rng, AUTHORS))}</name></author>`);
    out.push(`<category term="${xmlEscape(pick(rng, CATEGORIES))}"/>`);
    out.push(`<summary type="html">${htmlInXml(rng, htmlBody(rng, 1, n))}</summary>`);
    out.push(
      `<content type="html" xml:base="${o.site}/${slug}">${htmlInXml(rng, htmlBody(rng, o.paragraphs, n))}</content>`,
    );
    if (rng() < 0.1) {
      const length = 1_000_000 + Math.floor(rng() * 50_000_000);
      out.push(
        `<link rel="enclosure" type="audio/mpeg" length="${length}" href="${o.site}/audio/${n}.mp3"/>`,
      );
    }
    out.push('</entry>');
  }
  out.push('</feed>', '');
  return out.join('\n');
}

/** The smallest item count whose document is at least `bytes` long (documents grow linearly with it). */
export function itemsForSize(make: (items: number) => string, bytes: number): number {
  const probe = 200;
  const perItem = Buffer.byteLength(make(probe)) / probe;
  let items = Math.max(1, Math.ceil(bytes / perItem));
  while (Buffer.byteLength(make(items)) < bytes) items += Math.ceil(items / 50);
  return items;
}

/**
 * The fixture layout bench/feeds-server.ts serves and bench/feeds-poll.ts subscribes to: feed i lives on
 * origin i mod (number of origins), and is a static feed (304 to a conditional request) when
 * floor(i / origins) is even, a changing one otherwise, so both kinds are spread over every origin.
 */
export function feedUrl(origins: readonly string[], i: number): { url: string; changing: boolean } {
  const origin = origins[i % origins.length];
  if (origin === undefined) throw new Error('no origins');
  const changing = Math.floor(i / origins.length) % 2 === 1;
  return { url: `${origin}/${changing ? 'changing' : 'static'}/${i}.xml`, changing };
}
