import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyedSemaphore, Semaphore } from './semaphore.js';

/** Runs `count` tasks through `run`, each 10 ms long, and returns the most that ran at once per key. */
async function peaks(count: number, keyOf: (i: number) => string, run: RunFn): Promise<Map<string, number>> {
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      run(keyOf(i), async () => {
        const key = keyOf(i);
        const now = (running.get(key) ?? 0) + 1;
        running.set(key, now);
        peak.set(key, Math.max(peak.get(key) ?? 0, now));
        await sleep(10);
        running.set(key, now - 1);
      }),
    ),
  );
  return peak;
}

type RunFn = (key: string, fn: () => Promise<void>) => Promise<void>;

test('Semaphore: at most `limit` at once, the slot freed even when a holder throws', async () => {
  const semaphore = new Semaphore(3);
  const peak = await peaks(
    10,
    () => 'all',
    (_key, fn) => semaphore.run(fn),
  );
  assert.equal(peak.get('all'), 3);
  await assert.rejects(
    semaphore.run(() => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.ok(semaphore.idle);
});

test('KeyedSemaphore: at most `limit` at once per key, keys independent', async () => {
  const perHost = new KeyedSemaphore(2);
  const peak = await peaks(
    12,
    (i) => (i % 2 === 0 ? 'a.example' : 'b.example'),
    (key, fn) => perHost.run(key, fn),
  );
  assert.deepEqual([peak.get('a.example'), peak.get('b.example')], [2, 2]);
});
