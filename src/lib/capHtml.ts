/** Elements without an end tag in sanitised HTML. */
const VOID = new Set(['br', 'hr', 'img', 'wbr']);

/** Elements whose end is a place to cut: after one, the text read so far is whole paragraphs. */
const BLOCKS = new Set(
  'p h1 h2 h3 h4 h5 h6 ul ol dl li dd blockquote pre figure table div section article details'.split(' '),
);

/**
 * Sanitised HTML cut to at most about `limit` characters on an element boundary: everything up to the end
 * of the last block (BLOCKS) that closes before the limit, then end tags for what is
 * still open (a list or a section the block was in). Nothing when no block ends in time. The reader gets the beginning of a very long page, in whole paragraphs, rather than nothing;
 * the page's metadata is kept either way. Expects well-formed markup, as sanitize-html writes it (every
 * ">" in text and attribute values escaped, every element closed).
 */
export function capHtml(html: string, limit: number): { html: string; cut: boolean } {
  if (html.length <= limit) return { html, cut: false };
  const stack: string[] = [];
  let best: { at: number; open: string[] } = { at: 0, open: [] };
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>/g;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    const end = m.index + m[0].length;
    if (end > limit) break;
    const name = (m[2] ?? '').toLowerCase();
    if (m[1] === '/') {
      const at = stack.lastIndexOf(name);
      if (at !== -1) stack.length = at;
      if (BLOCKS.has(name)) best = { at: end, open: [...stack] };
    } else if (!VOID.has(name) && !m[0].endsWith('/>')) {
      stack.push(name);
    }
  }
  const closing = best.open
    .reverse()
    .map((name) => `</${name}>`)
    .join('');
  return { html: html.slice(0, best.at) + closing, cut: true };
}
