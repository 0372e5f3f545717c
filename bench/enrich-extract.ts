/**
 * The DOM choice for articles/extractPage (issue 11): runs the whole extraction over generated article
 * pages with linkedom, happy-dom and jsdom, each in a child process of its own (so memory is its own), and
 * prints pages/s, ms per page (median, p95), peak RSS and heap after 500 pages and at the end, and how
 * often Readability's text was right (the article's first and last sentences in, no sidebar, comment or
 * footer text). One RESULT line per DOM.
 *
 *   node --import tsx bench/enrich-extract.ts            all three DOMs
 *   BENCH_DOMS=linkedom BENCH_PAGES=500 node --import tsx bench/enrich-extract.ts
 *
 * BENCH_SECONDS (default 50) stops a slow DOM early; its line says how many pages it did. BENCH_NODE_FLAGS
 * passes flags to the children, e.g. "--max-old-space-size=160" to see a DOM run in a capped heap.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';
import { JSDOM } from 'jsdom';
import type { HtmlParser } from '../src/articles/dom.js';
import { parseWithLinkedom } from '../src/articles/dom.js';
import { extractPage } from '../src/articles/extract.js';
import { envInt } from './env.js';

const DOMS = ['linkedom', 'happy-dom', 'jsdom'] as const;
type DomName = (typeof DOMS)[number];

/** jsdom as production would run it: no scripts (runScripts unset), no resources; the last window closed. */
function jsdomParser(): HtmlParser {
  let last: JSDOM | null = null;
  return (html, url) => {
    last?.window.close();
    last = new JSDOM(html, url === null ? {} : { url });
    return last.window.document;
  };
}

/** happy-dom with everything that could run or load switched off; one window, a DOMParser per page. */
function happyDomParser(): HtmlParser {
  const window = new Window({
    settings: {
      enableJavaScriptEvaluation: false,
      disableJavaScriptFileLoading: true,
      disableCSSFileLoading: true,
      disableIframePageLoading: true,
      disableComputedStyleRendering: true,
      navigation: {
        disableMainFrameNavigation: true,
        disableChildFrameNavigation: true,
        disableChildPageNavigation: true,
        disableFallbackToSetURL: true,
      },
    },
  });
  const parser = new window.DOMParser();
  return (html) => parser.parseFromString(html, 'text/html');
}

const parsers: Record<DomName, () => HtmlParser> = {
  linkedom: () => parseWithLinkedom,
  'happy-dom': happyDomParser,
  jsdom: jsdomParser,
};

/** A small seeded generator (mulberry32), so every run and every DOM reads the same pages. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in a is that for it as was with be by on not he this are or his from at which but ' +
  'have an they you were her she there been one all we their has would when if so no will more about up out ' +
  'city river council budget train winter harbour school market garden museum bridge station village forest ' +
  'report study decision season election engineer teacher farmer doctor weather history language library'
).split(' ');

/** One article page of 50–150 KB: head, nav, header, article, sidebar, comments, footer, scripts, styles. */
function page(i: number): { html: string; first: string; last: string } {
  const r = random(i + 1);
  const pick = (): string => WORDS[Math.floor(r() * WORDS.length)] ?? 'word';
  const sentence = (n: number): string => {
    const words = Array.from({ length: n }, pick);
    return `${words.join(' ')}.`.replace(/^./, (c) => c.toUpperCase());
  };
  const target = 50_000 + Math.floor(r() * 100_000);
  const first = `Opening sentence of article ${i} about the ${pick()} and the ${pick()}.`;
  const last = `Closing sentence of article ${i}, the end.`;
  const paragraphs: string[] = [`<p>${first} ${sentence(30)}</p>`];
  let size = 0;
  for (let p = 0; size < target * 0.45; p++) {
    const text = Array.from({ length: 3 + Math.floor(r() * 5) }, () =>
      sentence(8 + Math.floor(r() * 20)),
    ).join(' ');
    const link = `<a href="/story/${i}-${p}?utm_source=rss">${pick()} ${pick()}</a>`;
    let block = `<p>${text.slice(0, 200)} ${link}, ${text.slice(200)}</p>`;
    if (p % 7 === 3)
      block += `<figure><img src="/img/${i}/${p}.jpg" alt="${pick()}" width="800" height="450"><figcaption>${sentence(10)}</figcaption></figure>`;
    if (p % 11 === 5) block += `<h2>${sentence(5)}</h2>`;
    if (p % 13 === 8)
      block += `<blockquote><p>${sentence(25)}</p></blockquote><ul>${'<li>item</li>'.repeat(4)}</ul>`;
    paragraphs.push(block);
    size += block.length;
  }
  paragraphs.push(`<p>${sentence(20)} ${last}</p>`);
  const sidebar = Array.from(
    { length: 12 },
    (_, k) => `<li><a href="/popular/${k}">SIDEBAR ${sentence(6)}</a></li>`,
  ).join('');
  const comments = Array.from(
    { length: 10 + Math.floor(r() * 30) },
    (_, k) =>
      `<div class="comment" id="c${k}"><div class="comment-meta"><a href="/u/${k}">user${k}</a> <time>2026-11-${(k % 28) + 1}</time></div><div class="comment-body"><p>COMMENTTEXT ${sentence(12)}</p></div><a class="reply" href="#reply">Reply</a></div>`,
  ).join('');
  const filler = 'x'.repeat(Math.max(0, target - size - 20_000));
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${sentence(7)} | Daily ${i % 50}</title>
<meta property="og:title" content="${sentence(8)}"><meta property="og:description" content="${sentence(20)}">
<meta property="og:image" content="/og/${i}.jpg"><meta property="og:site_name" content="Daily ${i % 50}">
<meta name="author" content="Author ${i % 97}"><meta property="article:published_time" content="2026-11-${(i % 28) + 1}T08:00:00Z">
<link rel="canonical" href="https://www.daily${i % 50}.com/story/${i}"><style>body{margin:0}.nav a{color:#333}${`.c${i}{padding:1px}`.repeat(50)}</style>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${sentence(8)}","author":{"name":"Author ${i % 97}"}}</script>
<script>window.dataLayer=[];var config={"page":${i},"blob":"${filler.slice(0, filler.length / 2)}"};</script></head>
<body><header class="site-header"><a href="/">Daily</a><nav class="nav">${Array.from({ length: 15 }, (_, k) => `<a href="/section/${k}">Section ${k}</a>`).join(' ')}</nav></header>
<main><article class="post"><h1>${sentence(8)}</h1><div class="byline">By Author ${i % 97}</div><div class="post-body">${paragraphs.join('\n')}</div></article>
<aside class="sidebar"><h3>Most popular</h3><ul>${sidebar}</ul></aside>
<section class="comments"><h3>Comments</h3>${comments}</section></main>
<footer class="site-footer">FOOTERTEXT © Daily. <a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
<script>(function(){var s=document.createElement('script');s.src='/ads.js';document.body.appendChild(s);})();var t="${filler.slice(filler.length / 2)}";</script>
</body></html>`;
  return { html, first, last };
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

/** Heap still in use after a full collection (the child runs with --expose-gc): what the pages left behind. */
function retained(): string {
  (globalThis as { gc?: () => void }).gc?.();
  return `retained heap ${mb(process.memoryUsage().heapUsed)} MB`;
}

function runOne(dom: DomName): void {
  const pages = envInt('BENCH_PAGES', 2000);
  const seconds = envInt('BENCH_SECONDS', 50);
  const parse = parsers[dom]();
  const times: number[] = [];
  let peakRss = 0;
  let at500 = '';
  let right = 0;
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < pages && performance.now() - started < seconds * 1000; i++) {
    const { html, first, last } = page(i);
    const body = new TextEncoder().encode(html);
    bytes += body.byteLength;
    const t = performance.now();
    const out = extractPage(
      {
        body,
        contentType: 'text/html; charset=utf-8',
        url: `https://www.daily${i % 50}.com/story/${i}?utm_source=x`,
      },
      { parse },
    );
    times.push(performance.now() - t);
    const text = out.text ?? '';
    if (
      text.includes(first) &&
      text.includes(last) &&
      !/SIDEBAR|COMMENTTEXT|FOOTERTEXT/.test(text) &&
      out.title !== null
    )
      right++;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (i === 499)
      at500 = `peak RSS ${mb(peakRss)} MB, heap ${mb(process.memoryUsage().heapUsed)} MB, ${retained()}`;
  }
  const sorted = [...times].sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  console.log(
    `RESULT dom=${dom} pages=${times.length} avgKB=${(bytes / times.length / 1024).toFixed(0)} pages/s=${((times.length * 1000) / total).toFixed(1)} ` +
      `median=${quantile(sorted, 0.5).toFixed(1)}ms p95=${quantile(sorted, 0.95).toFixed(1)}ms right=${right}/${times.length} ` +
      `after500=[${at500 || 'n/a'}] end=[peak RSS ${mb(peakRss)} MB, heap ${mb(process.memoryUsage().heapUsed)} MB, ${retained()}]`,
  );
}

const only = process.env.BENCH_DOM;
if (only !== undefined) {
  if (!DOMS.includes(only as DomName)) throw new Error(`BENCH_DOM must be one of ${DOMS.join(', ')}`);
  runOne(only as DomName);
} else {
  const wanted = (process.env.BENCH_DOMS ?? DOMS.join(',')).split(',');
  for (const dom of DOMS.filter((d) => wanted.includes(d))) {
    const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', ...flags, '--import', 'tsx', fileURLToPath(import.meta.url)],
      {
        env: { ...process.env, BENCH_DOM: dom },
        stdio: 'inherit',
      },
    );
    if (child.status !== 0) console.log(`RESULT dom=${dom} failed (exit ${child.status ?? child.signal})`);
  }
}
