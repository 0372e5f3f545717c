import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml } from './escape.js';

test('escapeHtml: the five characters that end text or a quoted attribute value, and only those', () => {
  assert.equal(escapeHtml('a < b & c > d'), 'a &lt; b &amp; c &gt; d');
  assert.equal(escapeHtml(`<a href="x" title='y'>&`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;');
  assert.equal(
    escapeHtml('&amp; stays escaped once more: &amp;amp;'),
    '&amp;amp; stays escaped once more: &amp;amp;amp;',
  );
  const plain = 'nothing to escape — café 😀';
  assert.equal(escapeHtml(plain), plain);
});
