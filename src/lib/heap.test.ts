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

test('the young generation keeps its size while held, and grows again once released', () => {
  // In a process of its own: this one's young generation has long grown (loading the test runner).
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { holdYoungGeneration, releaseStartUp } from ${JSON.stringify(new URL('./heap.ts', import.meta.url).href)};
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const churn = () => {
      let kept = [];
      for (let i = 0; i < 2e6; i++) {
        kept.push({ n: i, s: 'item ' + i });
        if (kept.length > 50000) kept = [];
      }
    };
    holdYoungGeneration();
    const start = young();
    churn();
    const held = young();
    releaseStartUp();
    churn();
    console.log(JSON.stringify({ start, held, released: young() }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  const { start, held, released } = JSON.parse(out) as { start: number; held: number; released: number };
  assert.equal(held, start, 'held: the young generation did not grow');
  assert.ok(released > held, `released: ${held} → ${released}`);
});

test('collectGarbage leaves gc unexposed to code that runs later', () => {
  collectGarbage();
  collectGarbage();
  assert.equal(runInNewContext('typeof gc'), 'undefined');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
