#!/usr/bin/env node
// The docs check (npm run check:docs, part of npm run check): the guides to the code name files that exist.
// In every page of docs/ and docs/design/, CONTRIBUTING.md, README.md and BENCHMARKS.md (or the files given
// as arguments) it fails on
// - a repository path (src/…, bench/…, scripts/…, deploy/…, docs/…) that names no file or folder (a `*` in
//   its last part must match at least one file);
// - a path written as `path` followed by `name` whose file does not contain that name (a function, a
//   constant: "src/queue/enqueue.ts `checkItem`"), so a renamed function cannot leave the map behind;
// - a relative Markdown link to a file that does not exist, or to a heading (#anchor) its page lacks.
// Paths inside fenced code blocks are commands and examples, not claims about the tree: not checked.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

const pagesIn = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => join(dir, f))
    : [];

function defaultFiles() {
  return [
    join(ROOT, 'docs', 'architecture.md'),
    join(ROOT, 'docs', 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
    ...pagesIn(join(ROOT, 'docs', 'design')),
    ...pagesIn(join(ROOT, 'docs')).filter((f) => !/\/(architecture|README)\.md$/.test(f)),
    join(ROOT, 'README.md'),
    join(ROOT, 'BENCHMARKS.md'),
  ];
}

/** Whether a repository path exists; a `*` in its last part matches any characters of a file's name. */
function pathExists(path) {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const dir = join(ROOT, dirname(path));
  const name = new RegExp(
    `^${path
      .slice(path.lastIndexOf('/') + 1)
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return existsSync(dir) && readdirSync(dir).some((f) => name.test(f));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slugOf = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorCache = new Map();
/** The anchors of a Markdown page's headings (outside code blocks). */
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const anchors = new Set();
    let fenced = false;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
      if (heading) anchors.add(slugOf(heading[1]));
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

/** A repository path: a known top folder, then path characters, ending on a letter, digit, _ or /. */
const PATH = /(?<![\w./-])((?:src|bench|scripts|deploy|docs)\/[\w./*-]*[\w/*])/g;
/** `path` `name`: a path in backticks followed by a name in backticks. */
const PATH_AND_NAME = /`((?:src|bench|scripts)\/[\w./-]+\.(?:ts|mjs))`\s+`([A-Za-z_$][\w$]*)`/g;
/** [text](target): a Markdown link; web addresses and anchors alone are not files. */
const LINK = /\]\(([^)\s]+)\)/g;

const files = process.argv.length > 2 ? process.argv.slice(2).map((f) => resolve(f)) : defaultFiles();
const problems = [];
let paths = 0;
let names = 0;
let links = 0;

for (const file of files) {
  if (!existsSync(file)) {
    problems.push(`${relative(ROOT, file)}: missing (the docs check reads it)`);
    continue;
  }
  const lines = readFileSync(file, 'utf8').split('\n');
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) return;
    const where = `${relative(ROOT, file)}:${i + 1}`;
    for (const m of line.matchAll(PATH)) {
      const path = m[1];
      paths++;
      if (!pathExists(path)) problems.push(`${where}: ${path} does not exist`);
    }
    for (const m of line.matchAll(PATH_AND_NAME)) {
      const [, path, name] = m;
      const target = join(ROOT, path);
      if (!existsSync(target) || !statSync(target).isFile()) continue; // reported above
      names++;
      if (!new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(readFileSync(target, 'utf8')))
        problems.push(`${where}: ${path} does not contain \`${name}\``);
    }
    for (const m of line.matchAll(LINK)) {
      const [target, anchor] = m[1].split('#', 2);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links++;
      const page = target === '' ? file : resolve(dirname(file), target);
      if (!existsSync(page)) problems.push(`${where}: the link to ${m[1]} leads to no file`);
      else if (anchor !== undefined && page.endsWith('.md') && !anchorsOf(page).has(anchor))
        problems.push(`${where}: the link to ${m[1]} names no heading of ${relative(ROOT, page)}`);
    }
  });
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check-docs: ${p}`);
  console.error(`check-docs: ${problems.length} problems in ${files.length} files`);
  process.exit(1);
}
console.log(
  `check-docs: ${files.length} files, ${paths} paths, ${names} names and ${links} links, all found`,
);
