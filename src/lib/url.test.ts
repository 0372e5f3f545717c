import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainOf } from './url.js';

test('domainOf: the host name without "www." or port, "" for what is not a URL', () => {
  assert.equal(domainOf('https://www.example.com:8080/a?b#c'), 'example.com');
  assert.equal(domainOf('http://WWW.Example.COM/'), 'example.com');
  assert.equal(domainOf('https://blog.example.com/'), 'blog.example.com');
  assert.equal(domainOf('https://wwwexample.com/'), 'wwwexample.com');
  assert.equal(domainOf('https://bücher.example/'), 'xn--bcher-kva.example');
  assert.equal(domainOf('http://[::1]:3000/'), '[::1]');
  assert.equal(domainOf(new URL('https://www.example.org/x')), 'example.org');
  assert.equal(domainOf('not a url'), '');
  assert.equal(domainOf(''), '');
});
