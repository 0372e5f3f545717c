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

test('a wake-up ends the sleep at once; one during a pass makes one more pass, not one per wake-up', async () => {
  let wake: () => void = () => undefined;
  let unsubscribed = 0;
  let passes = 0;
  let release: () => void = () => undefined;
  let holding = false;
  const worker = startLoop({
    name: 'woken loop',
    pass: async () => {
      passes++;
      if (holding) await new Promise<void>((resolve) => (release = resolve));
    },
    // An hour: a pass after the first comes only from a wake-up.
    sleepMs: () => 3_600_000,
    log: { error: () => undefined },
    failed: 'woken pass failed',
    wakeOn: (fn) => {
      wake = fn;
      return () => unsubscribed++;
    },
  });
  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await sleep(5);
  };
  await until(() => passes === 1);
  holding = true;
  wake();
  await until(() => passes === 2);
  // Woken three times while the second pass runs: one more pass once it ends, then the hour's sleep.
  wake();
  wake();
  wake();
  holding = false;
  release();
  await until(() => passes === 3);
  for (let turn = 0; turn < 20; turn++) await sleep(1);
  assert.equal(passes, 3);
  await worker.stop();
  assert.equal(unsubscribed, 1);
});
