import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columns } from './columns.js';

test('columns: two for each wide or full-width character, one for any other code point', () => {
  assert.equal(columns('Zeta Weekly'), 11);
  assert.equal(columns('保存したリンク'), 14);
  assert.equal(columns('收藏'), 4);
  assert.equal(columns('Tidings｜11月'), 7 + 2 + 2 + 2);
  assert.equal(columns('المحفوظة'), 8);
  assert.equal(columns('Café 📰'), 7);
  assert.equal(columns(''), 0);
});
