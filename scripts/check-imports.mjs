#!/usr/bin/env node
// The architecture check (npm run check:imports): reads every import of src/ and fails on one that goes up
// a layer, a circle, a migration that imports application code, a transport that reaches into the
// store's tables, an AccountId made outside src/accounts/, or a file over the size limit.
// docs/architecture.md explains the layers; this file is their one definition.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 400;
/**
 * Generated files are not read as code: the compiled catalogues (src/i18n/compiled/, one function per
 * message, written by `npm run i18n:compile` and checked to be current by check:i18n) grow with the messages.
 */
const GENERATED = /^i18n\/compiled\//;

/**
 * The layers, top to bottom. A module may import its own unit and any unit of a lower layer; units of one
 * layer may not import each other (feeds/, digest/ and articles/ are independent pipelines).
 */
const LAYERS = [
  ['cli'],
  ['http'],
  ['accounts', 'imports'],
  ['feeds', 'digest', 'articles', 'newsletters'],
  ['queue'],
  ['fetch'],
  ['store'],
  ['i18n'],
  ['lib'],
];
/** Files directly in src/ belong to lib: config, errors, logger. */
const unitOf = (file) => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? 'lib' : parts[0];
};
const rankOf = (unit) => LAYERS.findIndex((units) => units.includes(unit));

/** What transports may take from store/ at run time: opening and migrating the database. */
const STORE_FOR_TRANSPORTS = new Set(['store/db.ts', 'store/migrate.ts']);
const TRANSPORTS = new Set(['cli', 'http']);

const isTest = (file) => file.endsWith('.test.ts') || relative(SRC, file).startsWith('test/');

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testdata' ? [] : walk(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The relative imports of a file: target path and whether only types are imported. */
function importsOf(file, text) {
  const found = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2];
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    // `import { type A, type B }` is type-only too.
    const braces = /\{([^}]*)\}/.exec(m[0]);
    const allTypes =
      braces !== null && braces[1].split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '));
    found.push({
      target,
      typeOnly: m[1] !== undefined || allTypes,
      line: text.slice(0, m.index).split('\n').length,
    });
  }
  return found;
}

const files = walk(SRC);
const problems = [];
const graph = new Map();
const lineCounts = [];
const rel = (f) => relative(SRC, f);

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  lineCounts.push(lines);
  if (lines > MAX_LINES && !GENERATED.test(rel(file)))
    problems.push(`${rel(file)}: ${lines} lines, more than ${MAX_LINES}`);
  if (!rel(file).startsWith('accounts/authorize.ts') && !isTest(file) && /\bas AccountId\b/.test(text))
    problems.push(`${rel(file)}: casts to AccountId; only src/accounts/authorize.ts makes one`);
  if (isTest(file)) continue;

  const unit = unitOf(file);
  const edges = [];
  for (const imp of importsOf(file, text)) {
    const where = `${rel(file)}:${imp.line} imports ${rel(imp.target)}`;
    const targetUnit = unitOf(imp.target);
    if (rel(file).startsWith('store/migrations/')) {
      if (!rel(imp.target).startsWith('store/migrations/') && !imp.typeOnly)
        problems.push(`${where}: a migration is frozen and imports no application code`);
      continue;
    }
    if (!imp.typeOnly) edges.push(imp.target);
    if (rankOf(unit) < 0)
      problems.push(`${rel(file)}: src/${unit}/ is in no layer of scripts/check-imports.mjs`);
    if (targetUnit !== unit && rankOf(targetUnit) <= rankOf(unit))
      problems.push(`${where}: ${unit}/ may not import ${targetUnit}/ (same or higher layer)`);
    if (
      TRANSPORTS.has(unit) &&
      targetUnit === 'store' &&
      !imp.typeOnly &&
      !STORE_FOR_TRANSPORTS.has(rel(imp.target))
    )
      problems.push(`${where}: transports call services and queue/, not store/ tables`);
    if (rel(imp.target) === 'accounts/authorize.ts' && unit !== 'accounts' && /\bgrantAccount\b/.test(text))
      problems.push(`${rel(file)}: imports grantAccount; only src/accounts/ makes an AccountId`);
  }
  graph.set(file, edges);
}

// Circles: a depth-first search over the run-time imports (type-only imports leave no trace at run time).
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 'open') {
      const circle = stack.slice(stack.indexOf(next)).concat(next).map(rel);
      problems.push(`import circle: ${circle.join(' → ')}`);
    } else if (!state.has(next) && graph.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of graph.keys()) if (!state.has(file)) visit(file);

lineCounts.sort((a, b) => a - b);
const median = lineCounts[Math.floor(lineCounts.length / 2)];
if (problems.length > 0) {
  for (const p of problems) console.error(`check-imports: ${p}`);
  console.error(`check-imports: ${problems.length} problems in ${files.length} files`);
  process.exit(1);
}
console.log(
  `check-imports: ${files.length} files, ${graph.size} modules, no upward import, no circle; median file ${median} lines`,
);
