import { articlePage } from './bench/pages.js';
import { extractPage } from './src/articles/extract.js';
const N = Number(process.env.N ?? 150);
const enc = new TextEncoder();
const pages = Array.from({ length: N }, (_, i) => enc.encode(articlePage(i, `http://h${i % 16}.test`)));
// warm up
for (let i = 0; i < 20; i++) extractPage({ body: pages[i]!, contentType: 'text/html; charset=utf-8', url: `http://h${i % 16}.test/article/${i}` });
const t0 = process.cpuUsage();
let words = 0, bytes = 0;
for (let r = 0; r < Number(process.env.R ?? 1); r++)
for (let i = 0; i < N; i++) {
  const x = extractPage({ body: pages[i]!, contentType: 'text/html; charset=utf-8', url: `http://h${i % 16}.test/article/${i}` });
  words += x.wordCount ?? 0; bytes += x.html?.length ?? 0;
}
const u = process.cpuUsage(t0);
console.log(`cpu ms/page ${((u.user + u.system) / 1000 / N / Number(process.env.R ?? 1)).toFixed(1)} words ${words} bytes ${bytes}`);
