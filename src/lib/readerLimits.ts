/**
 * What is kept of a text to read, whoever made it: a saved page's reader HTML (articles/html.ts) and a
 * newsletter's body (newsletters/body.ts) alike.
 */

/**
 * The cap on stored reader HTML, in characters. Longer text is cut on an element boundary (capHtml) so
 * the reader gets its beginning in whole paragraphs, and the metadata is kept; `text` and the word count
 * are of what is kept.
 */
export const MAX_HTML_CHARS = 512 * 1024;

/**
 * The cap on the plain text kept of a page, in characters: what search indexes (migration 0015's
 * search_texts takes the same first 20,000) and nothing else reads. A typical article is whole in it; a
 * very long page is found by its first ~3,500 words. The word count and reading time are of the whole text.
 * Measured with `npm run bench:enrich` (BENCHMARKS.md, session 6): indexing 100,000 characters a page, the
 * reader ran at 34.7–36.8 pages a second; with 20,000, at 34.4–46.4 (runs vary ±15 %).
 */
export const MAX_TEXT_CHARS = 20_000;
