import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHttpUrl, resolveHttpUrl } from './urls.js';

test('resolveHttpUrl gives what the URL parser gives, with or without parsing', () => {
  const base = 'https://blog.example.com/dir/';
  for (const href of [
    // Returned as they are, unparsed: each is its own href.
    'https://blog.example.com/2024/05/post-1.html',
    'http://a-b.example.org/p/?utm_source=feed&x=1%20y',
    'https://1password.com/',
    // Parsed: the parser changes each of these.
    'HTTPS://Blog.Example.com/a',
    'https://blog.example.com',
    'https://blog.example.com:443/a',
    'https://blog.example.com/a/../b',
    'https://blog.example.com/a/%2e%2e/b',
    'https://blog.example.com/a b',
    "https://blog.example.com/a?it's",
    'https://127.1/a',
    'https://example.0x7f/a', // invalid: a last label that is a number makes the host an IPv4 address
    'https://xn--nxasmq6b.example/a',
    'https://blog.example.com/a\\b',
    '  https://blog.example.com/trimmed  ',
  ]) {
    assert.equal(
      resolveHttpUrl(href, base),
      URL.canParse(href.trim()) ? new URL(href.trim()).href : null,
      href,
    );
  }
  assert.equal(resolveHttpUrl('/relative', base), 'https://blog.example.com/relative');
  assert.equal(resolveHttpUrl('javascript:alert(1)', base), null);
  assert.equal(isHttpUrl('https://blog.example.com/2024/05/post-1.html'), true);
  assert.equal(isHttpUrl('tag:blog.example.com,2024:post-1'), false);
});
