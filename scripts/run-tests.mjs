#!/usr/bin/env node
// Runs every *.test.ts under src/ and bench/ with Node's own test runner (Node 20 has no glob for --test).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'testdata' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filter = process.argv.slice(2);
const files = ['src', 'bench']
  .flatMap((d) => find(d))
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
