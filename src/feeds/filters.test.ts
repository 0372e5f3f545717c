import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FilterError, compileFilter, passesFilters } from './filters.js';

const item = (title: string, summary = '') => ({ title, summary });

test('empty filters pass everything', () => {
  assert.equal(compileFilter(null), null);
  assert.equal(compileFilter('  '), null);
  assert.equal(passesFilters(item('anything'), null, null), true);
});

test('words match whole words, case-insensitively, in title or summary', () => {
  const include = compileFilter('Rust, go');
  assert.equal(passesFilters(item('Why RUST is fast'), include, null), true);
  assert.equal(passesFilters(item('Go 1.30 released'), include, null), true);
  assert.equal(passesFilters(item('A good day'), include, null), false);
  assert.equal(passesFilters(item('News', 'now in rust'), include, null), true);
  assert.equal(passesFilters(item('Über Käse'), compileFilter('käse'), null), true);
});

test('exclude wins over include; phrases and regular expressions work', () => {
  const include = compileFilter('release');
  const exclude = compileFilter('/beta|rc\\d+/, sponsored post');
  assert.equal(passesFilters(item('Stable release'), include, exclude), true);
  assert.equal(passesFilters(item('Beta release'), include, exclude), false);
  assert.equal(passesFilters(item('release rc2'), include, exclude), false);
  assert.equal(passesFilters(item('release', 'This is a Sponsored Post'), include, exclude), false);
  assert.equal(passesFilters(item('x'), compileFilter('/a,b/'), null), false);
  assert.equal(passesFilters(item('a,b'), compileFilter('/a,b/'), null), true);
});

test('a bad regular expression is a FilterError', () => {
  assert.throws(() => compileFilter('/(unclosed/'), FilterError);
  assert.throws(() => compileFilter('x'.repeat(2001)), FilterError);
});
