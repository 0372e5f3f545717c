/**
 * Realistic article pages for bench/enrich.ts, generated from a seed (the same page for the same number,
 * every run): 50–150 KB of HTML each, as news and blog pages are. A head with the usual meta tags (Open
 * Graph, Twitter, description, canonical, JSON-LD), inline styles and scripts; a body with a header and
 * navigation, an article of many paragraphs with links, emphasis, images and subheadings, a sidebar of
 * related links, a comment thread and a footer. Varied: the title, the length, the number of images and
 * comments and which metadata a page carries all follow the seed.
 */

import { seeded } from './feeds-corpus.js';

const WORDS = (
  'the of and to a in that is was he for it with as his on be at by had are but from or have an they which ' +
  'one you were all her she there would their we him been has when who will no more if out so said what up ' +
  'its about than into them can only other new some could time these two may first then do any like my now ' +
  'over such our man me even most made after also did many before must through back years where much your ' +
  'way well down should because each just those people how too little state good very make world still own ' +
  'see men work long get here between both life being under never day same another know while last might ' +
  'harbour train river council market school winter garden bridge village season music letter weather road'
).split(' ');

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pick(r, WORDS));
  return out.join(' ');
}

const sentence = (r: () => number): string => {
  const s = words(r, 8 + Math.floor(r() * 14));
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
};

/** A paragraph of 3–7 sentences; `said` gets each plain sentence, for the extraction's checks. */
function paragraph(r: () => number, site: string, said: string[] = []): string {
  const parts: string[] = [];
  const n = 3 + Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const s = sentence(r);
    said.push(s);
    const roll = r();
    if (roll < 0.2)
      parts.push(`${s} <a href="https://${site}/story/${Math.floor(r() * 1e6)}">${words(r, 3)}</a>.`);
    else if (roll < 0.3) parts.push(`<em>${s}</em>`);
    else if (roll < 0.35) parts.push(`<strong>${s}</strong>`);
    else parts.push(s);
  }
  return `<p>${parts.join(' ')}</p>`;
}

const STYLE = `<style>${Array.from(
  { length: 60 },
  (_, i) =>
    `.c${i}{margin:${i}px;padding:${i % 7}px;color:#${(i * 1234567).toString(16).slice(0, 6).padEnd(6, '0')}}`,
).join('\n')}</style>`;
const SCRIPT = `<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());${'var x=1;'.repeat(200)}</script>`;

/** The page numbered `n`, about `targetBytes` long (50–150 KB by default), as served from `origin`. */
export function articlePage(n: number, origin: string, targetBytes?: number): string {
  return articlePageParts(n, origin, targetBytes).html;
}

/**
 * A page and what its reader text must hold: the article's first and last sentences, and none of
 * `outside` (a sidebar link, a comment, the footer) — bench/enrich-extract.ts checks the extraction with
 * them. The same bytes as articlePage.
 */
export interface ArticlePageParts {
  html: string;
  first: string;
  last: string;
  outside: string[];
}

export function articlePageParts(n: number, origin: string, targetBytes?: number): ArticlePageParts {
  const r = seeded(n * 7919 + 17);
  const site = `site${n % 97}.example.com`;
  const target = targetBytes ?? 50_000 + Math.floor(r() * 100_000);
  const title = sentence(r).slice(0, -1);
  const description = sentence(r) + ' ' + sentence(r);
  const published = new Date(Date.UTC(2026, Math.floor(r() * 11), 1 + Math.floor(r() * 27), 8)).toISOString();
  const head = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>${title} | Site ${n % 97}</title>`,
    `<meta name="description" content="${description}">`,
    r() < 0.8
      ? `<meta property="og:title" content="${title}"><meta property="og:site_name" content="Site ${n % 97}">`
      : '',
    r() < 0.7
      ? `<meta property="og:image" content="${origin}/img/${n}.jpg"><meta property="og:image:width" content="1200">`
      : '',
    `<meta name="twitter:card" content="summary_large_image"><meta name="author" content="${words(r, 2)}">`,
    `<link rel="canonical" href="${origin}/article/${n}">`,
    r() < 0.5
      ? `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${title}","datePublished":"${published}","author":{"@type":"Person","name":"${words(r, 2)}"}}</script>`
      : `<meta property="article:published_time" content="${published}">`,
    STYLE,
    SCRIPT,
    '</head><body>',
  ].join('\n');
  const nav = `<header class="c1"><a href="/">Home</a><nav><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/section/${i}">${words(r, 2)}</a></li>`).join('')}</ul></nav></header>`;
  const outside: string[] = [];
  const aside = (s: string): string => (outside.push(s), s);
  const sidebar = `<aside class="sidebar"><h3>Related</h3><ul>${Array.from({ length: 15 }, (_, i) => `<li><a href="/related/${n}/${i}">${aside(sentence(r))}</a></li>`).join('')}</ul></aside>`;
  const footer = `<footer class="c2"><p>© 2026 Site ${n % 97}. ${aside(sentence(r))}</p>${Array.from({ length: 20 }, (_, i) => `<a href="/legal/${i}">${words(r, 2)}</a>`).join(' ')}<script>${'track();'.repeat(100)}</script></footer></body></html>`;
  const comments: string[] = ['<section class="comments"><h3>Comments</h3>'];
  const commentCount = 5 + Math.floor(r() * 25);
  for (let i = 0; i < commentCount; i++) {
    comments.push(
      `<div class="comment"><span class="who">${words(r, 1)}</span><p>${aside(sentence(r))} ${sentence(r)}</p><a href="#reply">Reply</a></div>`,
    );
  }
  comments.push('</section>');
  const fixed = head.length + nav.length + sidebar.length + footer.length + comments.join('').length;
  const body: string[] = [`<main><article><h1>${title}</h1><p class="byline">By ${words(r, 2)}</p>`];
  let size = fixed;
  const said: string[] = [];
  for (let i = 0; size < target; i++) {
    const p =
      i > 0 && i % 9 === 0
        ? `<h2>${sentence(r).slice(0, -1)}</h2>`
        : i % 6 === 5
          ? `<figure><img src="${origin}/img/${n}-${i}.jpg" alt="${words(r, 4)}" width="800" height="450"><figcaption>${sentence(r)}</figcaption></figure>`
          : paragraph(r, site, said);
    body.push(p);
    size += p.length;
  }
  body.push('</article>', sidebar, comments.join(''), '</main>');
  const html = [head, nav, ...body, footer].join('\n');
  return { html, first: said[0] ?? '', last: said[said.length - 1] ?? '', outside };
}
