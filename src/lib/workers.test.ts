import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLoop, workerId } from './workers.js';

test('workerId names the host and process, and differs per call', () => {
  const a = workerId();
  assert.match(a, new RegExp(`:${process.pid}:[0-9a-f]{6}$`));
  assert.notEqual(a, workerId());
});

test('startLoop runs passes, logs a failed one and goes on; stop() wakes the sleep and runs onStop', async () => {
  const errors: string[] = [];
  let passes = 0;
  let stopped = 0;
  const worker = startLoop({
    name: 'test loop',
    pass: () => {
      passes++;
      return passes === 1 ? Promise.reject(new Error('boom')) : Promise.resolve();
    },
    sleepMs: () => (passes < 3 ? 1 : 60_000),
    log: {
      error: (_obj, message) => {
        errors.push(message);
      },
    },
    failed: 'test pass failed; retrying shortly',
    onStop: () => {
      stopped++;
    },
  });
  assert.equal(worker.name, 'test loop');
  while (passes < 3) await sleep(5);
  const started = performance.now();
  await worker.stop();
  assert.ok(performance.now() - started < 1000, 'stop() waited out the sleep');
  assert.equal(passes, 3);
  assert.deepEqual(errors, ['test pass failed; retrying shortly']);
  assert.equal(stopped, 1);
});
