/**
 * The pages of issue 25's F1, which stopped the server for everyone while it read them, and a normal
 * article to read beside them. Each is built once per process (they are megabytes).
 */

const encode = (html: string): Buffer => Buffer.from(html, 'utf8');

const head = (title: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>`;

/** 1,000,000 nested `<div>`, never closed: 5 MB. htmlparser2's parse grows with the square of the depth. */
export function deepDivs(levels = 1_000_000): Buffer {
  return encode(head('Deep divs') + '<div>'.repeat(levels));
}

/** Elements that nest, inline and block, known and unknown to HTML (none closes another). */
const MIXED = ['div', 'span', 'section', 'b', 'font', 'blockquote', 'x-box', 'em', 'table', 'a', 'svg', 'g'];

/** 20,000 levels of mixed nesting, with a little text at each level: about 1 MB. */
export function mixedNesting(levels = 20_000): Buffer {
  const parts = [head('Mixed nesting')];
  for (let i = 0; i < levels; i++) {
    const tag = MIXED[i % MIXED.length] ?? 'div';
    parts.push(`<${tag} class="level-${i}" data-n="${i}">level ${i} `);
  }
  return encode(parts.join(''));
}

/** 200,000 elements side by side (list items with a word each), nested no deeper than a list: 2.4 MB. */
export function manyNodes(nodes = 200_000): Buffer {
  const parts = [head('Many nodes'), '<ul>'];
  for (let i = 0; i < nodes; i++) parts.push(`<li>item ${i}</li>`);
  parts.push('</ul></body></html>');
  return encode(parts.join(''));
}

/** An ordinary article page, titled `Article n`, that Readability reads. */
export function articlePage(n: number): Buffer {
  const paragraph = `<p>Paragraph of article ${n}, long enough to be read as an article by Readability, with <a href="/more/${n}">a link</a> and a few more words.</p>`;
  return encode(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Article ${n}</title>` +
      `<meta property="og:title" content="Article ${n}"></head>` +
      `<body><article><h1>Article ${n}</h1>${paragraph.repeat(12)}</article></body></html>`,
  );
}
