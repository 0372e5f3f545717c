import sanitizeHtml from 'sanitize-html';
import { MAX_LINK_LENGTH, resolveHttpUrl as httpUrl } from './url.js';
import { isTrackingPixel } from './trackingPixels.js';

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
  if (/^\s*mailto:/i.test(href)) return href.trim().length <= MAX_LINK_LENGTH ? href.trim() : null;
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

/** What a caller may add to the one sanitiser (a newsletter's body: src/newsletters/body.ts). */
export interface SanitizeHooks {
  /** Whether an element is hidden as sent (its inline style): then it is dropped with its content. */
  hidden?: (attribs: Readonly<sanitizeHtml.Attributes>) => boolean;
  /** A link's target as kept (absolute already): tracking parameters dropped, say. */
  link?: (href: string) => string;
  /** Elements deeper than this are dropped (their text kept): a message's markup may nest without end. */
  nestingLimit?: number;
}

/**
 * Reader HTML from Readability's output: only the elements and attributes of text (ALLOWED_TAGS) — no
 * scripts, event handlers, styles, classes, ids, frames, forms, objects, embeds, SVG or MathML; links
 * absolute against `base` (http, https and mailto only) with rel="noopener noreferrer nofollow"; images
 * absolute (or small raster data: images) with loading="lazy", dropped when they have no usable source
 * or are tracking pixels (src/lib/trackingPixels.ts: drawn 2×2 or smaller, hidden, or a known tracker's).
 * `hooks` drop more (hidden elements) and rewrite links.
 */
export function sanitizeArticle(html: string, base: string | null, hooks: SanitizeHooks = {}): string {
  const { hidden, link } = hooks;
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
    ...(hooks.nestingLimit === undefined ? {} : { nestingLimit: hooks.nestingLimit }),
    transformTags: {
      a: (tagName, attribs) => {
        const target = linkTarget(attribs.href, base);
        const href = target === null || link === undefined ? target : link(target);
        const rest = without(attribs, 'href');
        // A link whose target is refused is kept as its text.
        if (href === null) return { tagName: 'span', attribs: without(rest, 'rel') };
        return { tagName, attribs: { ...rest, href, rel: 'noopener noreferrer nofollow' } };
      },
      img: (tagName, attribs) => {
        const src = imageSource(attribs.src, base);
        const rest = without(attribs, 'src');
        // Without a source the image is dropped (exclusiveFilter): so is a pixel that only tracks.
        const kept = src !== null && !isTrackingPixel(attribs, src);
        return { tagName, attribs: kept ? { ...rest, src, loading: 'lazy' } : rest };
      },
      // An element hidden as sent becomes one dropped with its content (DROPPED_WITH_CONTENT).
      ...(hidden === undefined
        ? {}
        : {
            '*': (tagName: string, attribs: sanitizeHtml.Attributes) =>
              hidden(attribs) ? { tagName: 'template', attribs: {} } : { tagName, attribs },
          }),
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && frame.attribs.src === undefined,
  });
}
