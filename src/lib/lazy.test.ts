import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lazy } from './lazy.js';

test('a lazy module is loaded at its first use, once, and is known as loaded after', async () => {
  let loads = 0;
  const module = lazy(() => {
    loads++;
    return Promise.resolve({ answer: 42 });
  });
  assert.equal(loads, 0, 'nothing is loaded before the first call');
  assert.equal(module.loaded(), undefined);
  const [a, b] = await Promise.all([module(), module()]);
  assert.equal(loads, 1, 'two calls at once load it once');
  assert.equal(a, b);
  assert.equal(module.loaded(), a);
  assert.equal(await module(), a);
  assert.equal(loads, 1);
});

test('a real import through lazy gives the module itself', async () => {
  const path = lazy(() => import('node:path'));
  const loaded = await path();
  assert.equal(loaded.join('a', 'b'), 'a/b');
  assert.equal(path.loaded(), loaded);
});
