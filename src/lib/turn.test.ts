import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endOfTurn } from './turn.js';

test('every caller of a turn waits for the same check phase, after the I/O of that turn', async () => {
  const order: string[] = [];
  const first = endOfTurn();
  const second = endOfTurn();
  assert.equal(first, second);
  void first.then(() => order.push('first'));
  void second.then(() => order.push('second'));
  await new Promise<void>((resolve) => setImmediate(resolve));
  await Promise.resolve();
  assert.deepEqual(order, ['first', 'second']);
});

test('a later turn gets a new promise', async () => {
  const before = endOfTurn();
  await before;
  const after = endOfTurn();
  assert.notEqual(after, before);
  let settled = false;
  void after.then(() => (settled = true));
  await Promise.resolve();
  assert.equal(settled, false, 'not before the check phase');
  await after;
  assert.equal(settled, true);
});
