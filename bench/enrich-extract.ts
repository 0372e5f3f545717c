/**
 * The extraction step alone and the DOM choice for articles/extractPage (issue 11), the first part of
 * `npm run bench:enrich` (bench/enrich.ts): runs the whole extraction over the pipeline's pages
 * (bench/pages.ts) with linkedom, happy-dom and jsdom, each in a child process of its own (so memory is its
 * own), and gives pages/s, ms per page (median, p95), peak RSS and heap after 500 pages and at the end, and
 * how often Readability's text was right (the article's first and last sentences in, no sidebar, comment
 * or footer text).
 *
 *   node --import tsx bench/enrich-extract.ts            all three DOMs, alone
 *   BENCH_DOMS=linkedom BENCH_PAGES=500 node --import tsx bench/enrich-extract.ts
 *
 * BENCH_SECONDS (default 60) stops a slow DOM early; its line says how many pages it did. BENCH_NODE_FLAGS
 * passes flags to the children, e.g. "--max-old-space-size=160" to see a DOM run in a capped heap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';
import { JSDOM } from 'jsdom';
import type { HtmlParser } from '../src/articles/dom.js';
import { parseWithLinkedom } from '../src/articles/dom.js';
import { extractPage } from '../src/articles/extract.js';
import { MAX_TEXT_CHARS } from '../src/articles/html.js';
import { envInt } from './env.js';
import { articlePageParts } from './pages.js';

export const DOMS = ['linkedom', 'happy-dom', 'jsdom'] as const;
export type DomName = (typeof DOMS)[number];

/** What one DOM's child prints, after "RESULT ". */
export interface ExtractResult {
  dom: DomName;
  pages: number;
  avgBytes: number;
  perSecond: number;
  medianMs: number;
  p95Ms: number;
  right: number;
  /** Peak RSS and heap after a full GC at 500 pages (null when the DOM did fewer) and at the end. */
  at500: { peakRss: number; retainedHeap: number } | null;
  end: { peakRss: number; retainedHeap: number };
}

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

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Heap still in use after a full collection (the child runs with --expose-gc): what the pages left behind. */
function retainedHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

function runOne(dom: DomName): void {
  const pages = envInt('BENCH_PAGES', 2000);
  const seconds = envInt('BENCH_SECONDS', 60);
  const parse = parsers[dom]();
  const times: number[] = [];
  let peakRss = 0;
  let at500: ExtractResult['at500'] = null;
  let right = 0;
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < pages && performance.now() - started < seconds * 1000; i++) {
    // The pages of the pipeline (bench/pages.ts), as the reader gets them from its loopback hosts.
    const origin = `http://127.0.1.${1 + (i % 16)}:8080`;
    const { html, first, last, outside } = articlePageParts(i, origin);
    const body = new TextEncoder().encode(html);
    bytes += body.byteLength;
    const t = performance.now();
    const out = extractPage(
      { body, contentType: 'text/html; charset=utf-8', url: `${origin}/article/${i}` },
      { parse },
    );
    times.push(performance.now() - t);
    const text = out.text ?? '';
    if (
      text.includes(first) &&
      // The stored text is cut at MAX_TEXT_CHARS (a long article's last sentence is past it).
      (text.includes(last) || text.length > MAX_TEXT_CHARS * 0.9) &&
      !outside.some((s) => text.includes(s)) &&
      out.title !== null
    )
      right++;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (i === 499) at500 = { peakRss, retainedHeap: retainedHeap() };
  }
  const sorted = [...times].sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  const result: ExtractResult = {
    dom,
    pages: times.length,
    avgBytes: bytes / Math.max(1, times.length),
    perSecond: (times.length * 1000) / total,
    medianMs: quantile(sorted, 0.5),
    p95Ms: quantile(sorted, 0.95),
    right,
    at500,
    end: { peakRss, retainedHeap: retainedHeap() },
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/**
 * Runs each DOM of `doms` in a child process of its own, one after the other; a DOM whose child failed
 * is an Error in the list. `track` is given each child (bench/processes.ts's Cleanup.track).
 */
export async function extractionBench(
  doms: readonly DomName[],
  track: (child: ChildProcess) => void = () => undefined,
): Promise<(ExtractResult | Error)[]> {
  const results: (ExtractResult | Error)[] = [];
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  for (const dom of doms) {
    const child = spawn(
      process.execPath,
      ['--expose-gc', ...flags, '--import', 'tsx', fileURLToPath(import.meta.url)],
      { env: { ...process.env, BENCH_DOM: dom }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    track(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise<number | string>((done) =>
      child.on('close', (c, signal) => done(c ?? signal ?? 'unknown')),
    );
    const line = out.split('\n').find((l) => l.startsWith('RESULT '));
    results.push(
      code === 0 && line !== undefined
        ? (JSON.parse(line.slice('RESULT '.length)) as ExtractResult)
        : new Error(`${dom}: the child ended with ${code}`),
    );
  }
  return results;
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** One line of the summary for a DOM. */
export function describe(r: ExtractResult | Error): string {
  if (r instanceof Error) return `failed (${r.message})`;
  const at500 = r.at500 === null ? 'n/a' : `${mib(r.at500.peakRss)} / ${mib(r.at500.retainedHeap)}`;
  return (
    `${r.pages} pages of ${(r.avgBytes / 1024).toFixed(0)} KB: ${r.perSecond.toFixed(1)} pages/s, median ${r.medianMs.toFixed(1)} ms, ` +
    `p95 ${r.p95Ms.toFixed(1)} ms, text right ${r.right}/${r.pages}; peak RSS / retained heap after 500 ${at500}, ` +
    `at the end ${mib(r.end.peakRss)} / ${mib(r.end.retainedHeap)}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.env.BENCH_DOM;
  if (only !== undefined) {
    if (!DOMS.includes(only as DomName)) throw new Error(`BENCH_DOM must be one of ${DOMS.join(', ')}`);
    runOne(only as DomName);
  } else {
    const wanted = (process.env.BENCH_DOMS ?? DOMS.join(',')).split(',');
    for (const r of await extractionBench(DOMS.filter((d) => wanted.includes(d))))
      process.stdout.write(`${r instanceof Error ? 'failed' : r.dom}: ${describe(r)}\n`);
  }
}
