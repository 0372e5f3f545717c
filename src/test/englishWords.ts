import { esc } from '../digest/render/common.js';

/**
 * Issue 36 point 6: the English words a reader would read in a rendering (an e-mail, a page, a feed, a
 * book) once `content` — the fixture's own text (feed titles, names, summaries), not the catalogue's to
 * translate — and links, ids and markup are taken out. Rendered in the pseudo-locale en-XA, it must be
 * empty: a word left is a string that did not come from the catalogue. Attributes a reader hears or sees
 * (aria-label, title, alt) count; "Tidings" is a name.
 */
const decode = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&#847;|&zwnj;/g, '')
    .replace(/&amp;/g, '&');

/** The words of a rendering a reader reads, the feeds' text and links taken out: ASCII words left. */
export function englishWordsOf(rendered: string, content: readonly string[] = []): string[] {
  // Links first (a domain of CONTENT would break one), and lines joined (the text part wraps names).
  let text = withoutContent(
    rendered
      .replace(/\b(?:https?|mailto):[^\s<>"]+/g, ' ')
      // Identifiers and codes, not words: the book's uuid, Atom's tag: ids, the book's language code.
      .replace(/urn:uuid:[0-9a-f-]+|tag:[^\s<]+|<dc:language>[^<]*<\/dc:language>/g, ' ')
      .replace(/\s+/g, ' '),
    content,
  );
  for (let i = 0; i < 2; i++) {
    text = withoutContent(
      decode(
        text
          .replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/g, ' ')
          .replace(/<!--[\s\S]*?-->/g, ' ')
          .replace(/<\?xml[^>]*>|<!DOCTYPE[^>]*>/g, ' ')
          // What a reader hears or sees of attributes: labels, titles, alt texts.
          .replace(/<[^>]*>/g, (tag) =>
            [...tag.matchAll(/\s(?:aria-label|title|alt|placeholder)="([^"]*)"/g)]
              .map((m) => ` ${m[1] ?? ''} `)
              .join(''),
          ),
      ),
      content,
    );
  }
  text = withoutContent(
    text.replace(/\b(?:https?|mailto):[^\s<>"]+/g, ' ').replace(/urn:uuid:[0-9a-f-]+/g, ' '),
    content,
  );
  // Product and format names are names, not English: Tidings, EPUB in a link's label is pseudo anyway.
  return (text.match(/[A-Za-z]{2,}/g) ?? []).filter(
    (w) => w !== 'Tidings' && w !== 'TIDINGS' && w !== 'lorem',
  );
}

function withoutContent(rendered: string, content: readonly string[]): string {
  let text = rendered;
  for (const c of [...content].sort((a, b) => b.length - a.length)) {
    for (const form of [c, esc(c), c.toUpperCase(), esc(c.toUpperCase())]) text = text.split(form).join(' ');
  }
  return text;
}
