#!/usr/bin/env node
// The docs check (npm run check:docs, part of npm run check): the guides to the code name files that exist.
// In docs/architecture.md, docs/design/*.md, docs/README.md and CONTRIBUTING.md (or the files given as
// arguments) it fails on
// - a repository path (src/…, bench/…, scripts/…, deploy/…, docs/…) that names no file or folder;
// - a path written as `path` followed by `name` whose file does not contain that name (a function, a
//   constant: "src/queue/enqueue.ts `checkItem`"), so a renamed function cannot leave the map behind;
// - a relative Markdown link to a file that does not exist.
// Paths inside fenced code blocks are commands and examples, not claims about the tree: not checked.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

function defaultFiles() {
  const design = join(ROOT, 'docs', 'design');
  const notes = existsSync(design)
    ? readdirSync(design)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(design, f))
    : [];
  return [
    join(ROOT, 'docs', 'architecture.md'),
    join(ROOT, 'docs', 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
    ...notes,
  ];
}

/** A repository path: a known top folder, then path characters, ending on a letter, digit, _ or /. */
const PATH = /(?<![\w./-])((?:src|bench|scripts|deploy|docs)\/[\w./-]*[\w/])/g;
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
      if (!existsSync(join(ROOT, path))) problems.push(`${where}: ${path} does not exist`);
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
      const target = m[1].replace(/#.*$/, '');
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links++;
      if (!existsSync(resolve(dirname(file), target)))
        problems.push(`${where}: the link to ${m[1]} leads to no file`);
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
