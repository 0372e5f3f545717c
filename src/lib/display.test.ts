import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bylineAuthor } from './display.js';

test('bylineAuthor: never the site again, never a date or time, names kept', () => {
  assert.equal(bylineAuthor('BBC News', 'BBC News'), null);
  assert.equal(bylineAuthor(' bbc  news ', 'BBC News'), null, 'case and spaces aside');
  assert.equal(bylineAuthor('bbc.co.uk', 'BBC News', 'bbc.co.uk'), null, 'the domain is the site too');
  for (const date of [
    '21.dez.2018 às 10h55',
    '12 March 2024',
    '2024-03-12',
    '10:55',
    '21/12/2018',
    '3rd Jan',
  ]) {
    assert.equal(bylineAuthor(date, 'Folha'), null, date);
  }
  for (const name of ['Ana Souza', 'Inès Duval', 'Louis XIV', 'Marina Flores, Jo Lee', 'BBC Sport']) {
    assert.equal(bylineAuthor(name, 'BBC News', 'bbc.co.uk'), name);
  }
  assert.equal(bylineAuthor(null, 'BBC News'), null);
  assert.equal(bylineAuthor('  ', null), null);
});
