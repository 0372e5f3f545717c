import { Readability } from '@mozilla/readability';
import { isTrackingPixel } from '../lib/trackingPixels.js';
import { httpUrl } from './clean.js';
import type { DomDocument } from './dom.js';
import { MAX_ELEMENTS } from './limits.js';

/** What Readability's types call a Document: any DOM of articles/dom.ts is one for its purposes. */
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/**
 * The main text of a page as Readability finds it (unsanitised HTML: lib/sanitize.ts comes next), and
 * its guess at the author; null when it finds none or fails. Readability changes the document, so
 * metadata must be read first. Its own JSON-LD reading is off: articles/jsonLd.ts has done it, capped.
 */
export function readableContent(
  doc: DomDocument,
  base: string | null,
): { html: string; byline: string | null } | null {
  try {
    // Readability resolves links against the document's baseURI, which a server DOM may not have (linkedom
    // has none): a failed resolution per link costs a thrown error. Give it the page's base; the sanitiser
    // resolves every link again anyway, so this only changes how fast.
    Object.defineProperty(doc, 'baseURI', { value: base ?? undefined, configurable: true });
    dropTrackingPixels(doc, base);
    const article = new Readability(doc as unknown as ReadabilityDocument, {
      maxElemsToParse: MAX_ELEMENTS, // the scan before parsing refuses more; a second guard
      disableJSONLD: true,
      keepClasses: true, // the sanitiser drops every class; Readability need not walk them first
    }).parse();
    const html = article?.content;
    if (typeof html !== 'string' || html === '') return null;
    return { html, byline: typeof article?.byline === 'string' ? article.byline : null };
  } catch {
    return null; // too many elements, or markup deep enough to overflow the stack
  }
}

/**
 * Tracking pixels (lib/trackingPixels.ts) out of the document before Readability, which drops the inline
 * styles that make some of them (width:1px); the sanitiser drops those its attributes show.
 */
function dropTrackingPixels(doc: DomDocument, base: string | null): void {
  for (const img of [...doc.querySelectorAll('img')]) {
    const src = httpUrl(img.getAttribute('src'), base);
    const attribs = Object.fromEntries(
      ['width', 'height', 'style', 'hidden'].flatMap((name) => {
        const value = img.getAttribute(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    if (src !== null && isTrackingPixel(attribs, src)) img.remove();
  }
}
