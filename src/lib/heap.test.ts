import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { collectGarbage } from './heap.js';

test('collectGarbage frees what nothing holds any more', () => {
  // About 60 MB that only this array holds: garbage once it is dropped.
  let garbage: string[] | null = Array.from({ length: 600_000 }, (_, i) => `${i}`.padEnd(100, 'x'));
  const withGarbage = process.memoryUsage().heapUsed;
  assert.equal(garbage.length, 600_000);
  garbage = null;
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  assert.ok(withGarbage - after > 40 * 2 ** 20, `heap used ${withGarbage} → ${after}`);
});

test('a held young generation keeps its size however many objects survive', () => {
  // In a process of its own: this one's young generation has long grown (loading the test runner).
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { holdYoungGeneration } from ${JSON.stringify(new URL('./heap.ts', import.meta.url).href)};
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const churn = () => {
      let kept = [];
      for (let i = 0; i < 2e6; i++) {
        kept.push({ n: i, s: 'item ' + i });
        if (kept.length > 50000) kept = [];
      }
    };
    const start = young();
    churn();
    const grown = young();
    holdYoungGeneration();
    const before = young();
    churn();
    console.log(JSON.stringify({ start, grown, before, held: young() }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  const sizes = JSON.parse(out) as { start: number; grown: number; before: number; held: number };
  // The same churn grows a young generation that is not held (else this test would prove nothing)…
  assert.ok(sizes.grown > sizes.start, `not held: ${sizes.start} → ${sizes.grown}`);
  // …and, held, this one stays as it was.
  assert.equal(sizes.held, sizes.before, `held: ${sizes.before} → ${sizes.held}`);
});

test('collectGarbage leaves gc unexposed to code that runs later', () => {
  collectGarbage();
  collectGarbage();
  assert.equal(runInNewContext('typeof gc'), 'undefined');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
