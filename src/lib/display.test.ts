import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestBodyHtml } from '../digest/render/html.js';
import { digestView } from '../digest/view.js';
import { checkTitle } from '../queue/url.js';
import { feedItem, sampleDigest } from '../test/digestFixtures.js';
import { MAX_TITLE_LENGTH, bylineAuthor, displayFeedTitle } from './display.js';
import { codePoints } from './text.js';

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

/** A feed's title as a heading shows it is cut as an item's title is when queued (issue 25, F7). */
const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

test('displayFeedTitle folds, and cuts a long title exactly as an item title is cut', () => {
  assert.equal(displayFeedTitle('  News \n of   the day '), 'News of the day');
  assert.equal(displayFeedTitle(null), '');
  assert.equal(displayFeedTitle(' \u202e '), '');
  const exact = 'x'.repeat(MAX_TITLE_LENGTH);
  assert.equal(displayFeedTitle(exact), exact, 'at the limit: kept whole');

  const long = words(500); // about 3,400 characters
  const shown = displayFeedTitle(long);
  assert.ok(codePoints(shown) <= MAX_TITLE_LENGTH, `${codePoints(shown)} characters`);
  assert.match(shown, /^word0 word1 .* word\d+…$/, 'cut on a word, marked with …');
  assert.equal(shown, checkTitle(long, 'https://x.example/', 'shorten'), 'the item-title rule');

  // Characters, not UTF-16 units: 1,000 emoji are not cut.
  const emoji = '\u{1F4F0}'.repeat(MAX_TITLE_LENGTH);
  assert.equal(displayFeedTitle(emoji), emoji);
});

test("a digest's heading for a feed with a 3,000-character title shows it shortened", () => {
  const title = words(450);
  assert.ok(title.length > 3000);
  const view = digestView(
    sampleDigest({ items: [feedItem({ url: 'https://long.example/1', feed_id: 5, feed_title: title })] }),
  );
  const html = digestBodyHtml(view, 'web');
  assert.ok(!html.includes(title), 'the whole title is not in the page');
  assert.ok(html.includes(`${displayFeedTitle(title)}<`), 'the heading shows the shortened title');
});
