import sanitizeHtml from 'sanitize-html';
import { isTrackingPixel } from '../lib/trackingPixels.js';
import { httpUrl, LIMITS } from './clean.js';

/**
 * Raster images small enough to keep inline: `data:` is refused everywhere else (it can carry a page),
 * and SVG images are refused (they can carry scripts). Larger inline images would crowd the size cap.
 */
const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[a-z0-9+/=\s]+$/i;
const MAX_DATA_IMAGE_CHARS = 64 * 1024;

/** Elements dropped with everything inside them; any other element not allowed is dropped, its text kept. */
const DROPPED_WITH_CONTENT = (
  'script style noscript template textarea option select button form iframe frame frameset object ' +
  'embed applet svg math canvas video audio head title link meta base dialog input'
).split(' ');

const ALLOWED_TAGS = (
  'p br hr h1 h2 h3 h4 h5 h6 ul ol li dl dt dd blockquote q cite pre code kbd samp var em strong b ' +
  'i u s del ins mark small sub sup abbr time a img figure figcaption table caption thead tbody ' +
  'tfoot tr th td div span section article details summary'
).split(' ');

/** Where a link or an image points, absolute; null for anything that is not http(s) (or mailto: links). */
function linkTarget(href: string | undefined, base: string | null): string | null {
  if (href === undefined) return null;
  if (/^\s*mailto:/i.test(href)) return href.trim().length <= LIMITS.url ? href.trim() : null;
  return httpUrl(href, base);
}

function imageSource(src: string | undefined, base: string | null): string | null {
  if (src !== undefined && /^\s*data:/i.test(src)) {
    const data = src.trim();
    return data.length <= MAX_DATA_IMAGE_CHARS && DATA_IMAGE.test(data) ? data : null;
  }
  return httpUrl(src, base);
}

/** Attributes without the one named, for a tag whose value was refused. */
function without(attribs: sanitizeHtml.Attributes, name: string): sanitizeHtml.Attributes {
  return Object.fromEntries(Object.entries(attribs).filter(([key]) => key !== name));
}

/**
 * Reader HTML from Readability's output: only the elements and attributes of text (ALLOWED_TAGS) — no
 * scripts, event handlers, styles, classes, ids, frames, forms, objects, embeds, SVG or MathML; links
 * absolute against `base` (http, https and mailto only) with rel="noopener noreferrer nofollow"; images
 * absolute (or small raster data: images) with loading="lazy", dropped when they have no usable source
 * or are tracking pixels (src/lib/trackingPixels.ts: drawn 2×2 or smaller, hidden, or a known tracker's).
 */
export function sanitizeArticle(html: string, base: string | null): string {
  return sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    nonTextTags: DROPPED_WITH_CONTENT,
    allowedAttributes: {
      '*': ['lang', 'dir', 'title'],
      a: ['href', 'rel'],
      img: ['src', 'alt', 'width', 'height', 'loading'],
      ol: ['start', 'reversed', 'type'],
      li: ['value'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan', 'scope'],
      time: ['datetime'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => {
        const href = linkTarget(attribs.href, base);
        const rest = without(attribs, 'href');
        // A link whose target is refused is kept as its text.
        if (href === null) return { tagName: 'span', attribs: without(rest, 'rel') };
        return { tagName, attribs: { ...rest, href, rel: 'noopener noreferrer nofollow' } };
      },
      img: (tagName, attribs) => {
        const src = imageSource(attribs.src, base);
        const rest = without(attribs, 'src');
        // Without a source the image is dropped (exclusiveFilter): so is a pixel that only tracks.
        if (src === null || isTrackingPixel(attribs, src)) return { tagName, attribs: rest };
        return { tagName, attribs: { ...rest, src, loading: 'lazy' } };
      },
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && frame.attribs.src === undefined,
  });
}
