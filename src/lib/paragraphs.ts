import { foldWhitespace, htmlToText } from './text.js';

/**
 * Plain text that keeps a text's paragraphs (issue 25: a feed's standfirst ran into its body, "…medical
 * procedures Police dropped…"): each paragraph folded as htmlToText and foldWhitespace fold, paragraphs
 * joined by one line feed. A reader that folds whitespace again sees at least a space between them.
 */

/** The tags that end a paragraph, opening or closing (or alone, as <br> and <hr>). */
const BLOCK_TAG =
  /<\/?(?:p|div|br|hr|li|dd|dt|dl|ul|ol|h[1-6]|blockquote|pre|section|article|header|footer|aside|main|nav|figure|figcaption|table|tr|address)(?=[\s/>])[^>]*>/gi;

/** Elements whose content nobody reads, removed before the split so that no paragraph starts inside one. */
const HIDDEN_ELEMENT = /<(script|style|template|noscript)\b[\s\S]*?<\/\1\s*>/gi;

/**
 * The paragraphs of an HTML fragment (its block elements and line breaks end one). Stops once `limit`
 * characters are read, as what is kept is cut there anyway: a large item's content costs no more than its
 * first paragraphs.
 */
export function paragraphsOfHtml(html: string, limit = Number.POSITIVE_INFINITY): string {
  const source = /<(?:script|style|template|noscript)\b/i.test(html)
    ? html.replace(HIDDEN_ELEMENT, ' ')
    : html;
  const block = new RegExp(BLOCK_TAG.source, 'gi');
  const out: string[] = [];
  let length = 0;
  for (let from = 0; ;) {
    const tag = block.exec(source);
    const text = htmlToText(source.slice(from, tag?.index ?? source.length));
    if (text !== '') {
      out.push(text);
      length += text.length + 1;
    }
    if (tag === null || length > limit) break;
    from = tag.index + tag[0].length;
  }
  return out.join('\n');
}

/** The paragraphs of plain text: those a blank line separates; a single line break is only a wrap. */
export function paragraphsOfText(text: string): string {
  return text
    .split(/\n[^\S\n]*\n/)
    .map(foldWhitespace)
    .filter((p) => p !== '')
    .join('\n');
}
