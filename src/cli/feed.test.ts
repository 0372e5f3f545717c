import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from './run.js';

interface Run {
  code: number;
  out: string[];
  err: string[];
}

const cli = async (...args: string[]): Promise<Run> => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out, err };
};

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../feeds/parse/testdata/${name}`, import.meta.url));

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidings-feed-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('feed parse prints one JSON line per file with the documented fields', async () => {
  const r = await cli('feed', 'parse', fixture('rss2.xml'), fixture('feed11.json'));
  assert.equal(r.code, 0, r.err.join('\n'));
  assert.equal(r.out.length, 2);
  const rss = JSON.parse(r.out[0] ?? '') as Record<string, unknown> & { items: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(rss), ['format', 'title', 'siteUrl', 'items']);
  assert.equal(rss.format, 'rss');
  assert.equal(rss.title, 'Tea & Biscuits');
  assert.deepEqual(rss.items[0], {
    id: 'tea-0001',
    url: 'https://tea.example/posts/earl-grey',
    title: 'Earl Grey & the perfect brew — part 1',
    published: '2024-03-05T08:30:00.000Z',
    updated: null,
    summary: 'Steep for three minutes.\nThen wait.', // paragraphs kept (issue 25)
    author: 'Ada Lovelace',
  });
  assert.equal((JSON.parse(r.out[1] ?? '') as { format: string }).format, 'json');
});

test('a file that cannot be read or parsed gets an error line in its place, and exit code 1', async () => {
  const empty = join(dir, 'empty.xml');
  await writeFile(empty, '');
  const missing = join(dir, 'missing.xml');
  const r = await cli('feed', 'parse', fixture('page.html'), fixture('atom10.xml'), missing, empty);
  assert.equal(r.code, 1);
  assert.equal(r.out.length, 4);
  const lines = r.out.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines[0], { file: fixture('page.html'), error: 'not a feed: HTML page' });
  assert.equal(lines[1]?.format, 'atom');
  assert.equal(lines[2]?.file, missing);
  assert.match(String(lines[2].error), /^cannot read the file: ENOENT/);
  assert.deepEqual(lines[3], { file: empty, error: 'empty document' });
  assert.match(r.err.join('\n'), /3 of 4 files could not be parsed/);
});

test('--base-url resolves relative links; a bad one is a usage error', async () => {
  const feed = join(dir, 'relative.xml');
  await writeFile(feed, '<rss version="2.0"><channel><item><link>post/1</link></item></channel></rss>');
  const r = await cli('feed', 'parse', '--base-url', 'https://example.org/blog/feed', feed);
  assert.equal(r.code, 0, r.err.join('\n'));
  const line = JSON.parse(r.out[0] ?? '') as { items: { url: string }[] };
  assert.equal(line.items[0]?.url, 'https://example.org/blog/post/1');
  const bad = await cli('feed', 'parse', '--base-url', 'not a url', feed);
  assert.equal(bad.code, 2);
  assert.match(bad.err.join('\n'), /--base-url must be an absolute http\(s\) URL/);
  assert.deepEqual(bad.out, []);
});

test('feed parse without files is a usage error; its help documents the exit status', async () => {
  assert.equal((await cli('feed', 'parse')).code, 2);
  const help = await cli('feed', 'parse', '--help');
  assert.equal(help.code, 0);
  assert.match(help.out.join('\n'), /Exit status: 0 when every file parsed, 1 when any did not/);
});
