import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manyParts, substackLike } from '../test/newsletterFixtures.js';
import { parsePool } from './parseThread.js';

const parsed = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && !('malformed' in result);

test('parse threads are kept: one thread reads message after message', async () => {
  const pool = parsePool(1, { timeMs: 60_000, heapMb: 256 });
  try {
    for (let n = 0; n < 5; n++) {
      assert.ok(parsed(await pool.run(substackLike({ messageId: `kept-${n}@x.example` }))));
    }
    assert.equal(pool.started, 1);
  } finally {
    await pool.close();
  }
});

test('a parse thread is replaced after its share of messages', async () => {
  const pool = parsePool(1, { timeMs: 60_000, heapMb: 256 }, 2);
  try {
    for (let n = 0; n < 5; n++) {
      assert.ok(parsed(await pool.run(substackLike({ messageId: `share-${n}@x.example` }))));
    }
    assert.equal(pool.started, 3); // messages 1–2, 3–4, 5
  } finally {
    await pool.close();
  }
});

test('a hostile message that fills the heap ends its thread; a fresh one reads the next, then is kept', async () => {
  const pool = parsePool(1, { timeMs: 60_000, heapMb: 16 });
  try {
    assert.ok(parsed(await pool.run(substackLike({ messageId: 'before@x.example' }))));
    assert.equal(pool.started, 1);
    assert.deepEqual(await pool.run(manyParts(20_000)), {
      malformed: 'reading the message needs more than the 16 MB Tidings allows',
    });
    assert.ok(parsed(await pool.run(substackLike({ messageId: 'after-1@x.example' }))));
    assert.ok(parsed(await pool.run(substackLike({ messageId: 'after-2@x.example' }))));
    assert.equal(pool.started, 2);
  } finally {
    await pool.close();
  }
});
