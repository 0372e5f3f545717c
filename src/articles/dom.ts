import { parseHTML } from 'linkedom';

/**
 * The little of a DOM element that metadata reading needs. Each DOM this module may hand out (linkedom in
 * production; happy-dom and jsdom in bench/enrich-extract.ts) has it; nothing else in articles/ names a
 * DOM library, so the choice stays in this file.
 */
export interface DomElement {
  getAttribute(name: string): string | null;
  readonly textContent: string | null;
  remove(): void;
}

export interface DomDocument {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  readonly documentElement: DomElement | null;
}

/**
 * Parses one page's HTML into a fresh document that Readability can read (it mutates it). `url` is the
 * page's address, for DOMs that resolve relative URLs with it (lib/sanitize.ts resolves them anyway).
 * It must never run the page's scripts nor load anything.
 */
export type HtmlParser = (html: string, url: string | null) => DomDocument;

/**
 * linkedom, chosen by bench/enrich-extract.ts (fastest by far, flat memory, same Readability output on the
 * fixtures as jsdom). It is a parser and a DOM, no browser: it has no script engine, never fetches
 * anything (images, styles, frames) and has no event loop, so nothing a page sends can run.
 */
export const parseWithLinkedom: HtmlParser = (html) => {
  const window = parseHTML(html) as unknown as { document: DomDocument };
  return window.document;
};
