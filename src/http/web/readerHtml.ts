import sanitizeHtml from 'sanitize-html';
import type { MediaLinks } from '../../lib/mediaUrl.js';
import { isTrackingPixel } from '../../lib/trackingPixels.js';

/**
 * The reading view's second sanitising pass over stored reader HTML (the first ran when the page was read,
 * src/lib/sanitize.ts). Defence in depth, written independently of the first: a row changed by hand,
 * by an older version or by a bug in the extraction still shows as text only. What survives: the elements
 * of text, links to absolute http(s) and mailto: addresses, images from absolute http(s) addresses or
 * small raster data: URLs. Dropped with their content: scripts, styles, frames, forms, SVG, MathML,
 * objects, media; dropped always: event handlers, style, class and id attributes, every other scheme
 * (javascript:, data: outside images, relative and protocol-relative URLs). Images go through `media`
 * (lib/mediaUrl.ts: the media proxy's signed links, unless TIDINGS_MEDIA_PROXY=off); tracking pixels
 * (lib/trackingPixels.ts) kept by a page read before they were dropped on arrival go here.
 */

const TEXT_TAGS = [
  ...['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'q', 'cite', 'pre', 'code'],
  ...['ul', 'ol', 'li', 'dl', 'dt', 'dd', 'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'mark'],
  ...['small', 'sub', 'sup', 'abbr', 'time', 'kbd', 'samp', 'var', 'a', 'img', 'figure', 'figcaption'],
  ...['table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'div', 'span', 'section'],
  ...['article', 'details', 'summary'],
];

const GONE_WITH_CONTENT = [
  ...['script', 'style', 'noscript', 'template', 'textarea', 'option', 'select', 'button', 'form'],
  ...['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'svg', 'math', 'canvas', 'video'],
  ...['audio', 'head', 'title', 'link', 'meta', 'base', 'dialog', 'input', 'portal', 'xmp', 'plaintext'],
];

const ABSOLUTE_HTTP = /^https?:\/\/[^\s/]/i;
const MAILTO = /^mailto:[^\s]/i;
const RASTER_DATA = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[a-z0-9+/=]+$/i;

/** Stored reader HTML made safe to put in the reading view's page, its images written by `media`. */
export function readerHtml(stored: string, media: MediaLinks): string {
  return sanitizeHtml(stored, {
    allowedTags: TEXT_TAGS,
    nonTextTags: GONE_WITH_CONTENT,
    disallowedTagsMode: 'discard',
    allowedAttributes: {
      '*': ['lang', 'dir', 'title'],
      a: ['href', 'rel'],
      img: ['src', 'alt', 'width', 'height', 'loading', 'referrerpolicy'],
      ol: ['start', 'reversed'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan', 'scope'],
      time: ['datetime'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => {
        const href = (attribs.href ?? '').trim();
        if (!ABSOLUTE_HTTP.test(href) && !MAILTO.test(href)) return { tagName: 'span', attribs: {} };
        return { tagName, attribs: { ...attribs, href, rel: 'noopener noreferrer nofollow' } };
      },
      img: (tagName, attribs) => {
        const given = (attribs.src ?? '').trim();
        if (!ABSOLUTE_HTTP.test(given) && !RASTER_DATA.test(given)) return { tagName, attribs: {} };
        const src = isTrackingPixel(attribs, given) ? null : media.image(given);
        if (src === null) return { tagName, attribs: {} };
        return { tagName, attribs: { ...attribs, src, loading: 'lazy', referrerpolicy: 'no-referrer' } };
      },
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && frame.attribs.src === undefined,
  });
}
