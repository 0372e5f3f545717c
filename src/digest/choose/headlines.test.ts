import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALONE, headlineOf, sameStory, sharesNames } from './headlines.js';
import { pageKeyOf } from './pageKey.js';

const same = (a: string, b: string): boolean => sameStory(headlineOf(a), headlineOf(b));

test('headlines of one story match across wording, word forms and languages', () => {
  assert.ok(
    same('Fed raises interest rates by half a point', 'Federal Reserve raises interest rates half point'),
  );
  assert.ok(
    same(
      'Apple unveils new iPhone 17 with longer battery',
      'New iPhone 17 unveiled by Apple: longer battery life',
    ),
  );
  assert.ok(
    same(
      'Der Bundestag beschließt am Freitag das neue Heizungsgesetz der Regierung',
      'Heizungsgesetz der Regierung: Bundestag beschließt am Freitag neue Regeln',
    ),
  );
  assert.ok(
    same(
      'La France gagne la finale de la Coupe Davis à Malaga',
      'Coupe Davis à Malaga : la France gagne sa finale',
    ),
  );
  assert.ok(
    same('BREAKING: Storm hits coast', 'Breaking — storm hits coast'),
    'the same headline once normalised',
  );
});

test('different stories do not match, even on the same subject', () => {
  assert.ok(!same('Fed raises interest rates by half a point', 'Fed holds interest rates steady in March'));
  assert.ok(!same('Apple stock falls after earnings', 'Rain expected across the north tomorrow'));
  assert.ok(!same('Live: election results', 'Live: football results'), 'fewer than three significant words');
});

test('short headlines of one announcement match: three words and a name in common (issue 33)', () => {
  // Two outlets, one organisation's announcement; the second headline has four significant words.
  assert.ok(same('Corvane unveils new chip plan', "Corvane's chip plan: what we know"));
  assert.ok(same('Fujitsu to close Augsburg plant', 'Fujitsu closes its Augsburg plant'));
  // Numbers of a series share their other words: each has a number the other lacks.
  assert.ok(!same('Episode 12 show notes', 'Episode 13 show notes'));
  // Without a name in common, three words of a short headline tell no story apart.
  assert.ok(!same('weekly reading list notes', 'notes on my reading list'));
  // Three words of four, but not the name: two companies' news.
  assert.ok(!same('Corvane chip plan delayed', 'Halvard chip plan delayed'));
});

test('one page under several links: tracking and referral parameters, www., a trailing slash', () => {
  const key = pageKeyOf('https://news.example/story/42');
  assert.equal(pageKeyOf('http://www.news.example/story/42/?ref=rss'), key);
  assert.equal(pageKeyOf('https://news.example/story/42?utm_source=feed&utm_medium=rss#top'), key);
  assert.notEqual(
    pageKeyOf('https://news.example/story/42?page=2'),
    key,
    'a parameter that chooses the page',
  );
  assert.equal(pageKeyOf('javascript:alert(1)'), null);
});

test('names shared: a story told by two sites, but not two release notes that open alike', () => {
  const rare = ALONE;
  const names = (a: string, b: string): boolean => sharesNames(headlineOf(a), headlineOf(b), rare);
  assert.ok(
    names('Quebec braces as Storm Celine arrives', 'Thousands without power after Celine batters Quebec'),
  );
  assert.ok(
    !names(
      'Fix JavaScript linter path in GitHub Actions',
      'Fix conditions to publish packages in GitHub workflows',
    ),
    'a first word capitalised by its place is no name both share',
  );
  assert.ok(
    !names(
      'Bump github.com/go-jose/go-jose/v3 from 3.0.1 to 3.0.3',
      'Bump golang.org/x/oauth2 from 0.17.0 to 0.18.0',
    ),
    'a version is one word, not its digits',
  );
  assert.ok(
    names('Lindholm: Corvane Europe shuts everything down', 'Corvane closes its factory in Lindholm'),
    'a colon ends a name: "Lindholm" and "Corvane Europe" are two (issue 33)',
  );
  assert.deepEqual([...headlineOf('Lindholm: Corvane Europe shuts everything down').acronyms], []);
  assert.deepEqual(headlineOf('Lindholm: Corvane Europe shuts everything down').entities, [
    ['lindholm'],
    ['corvane', 'europe'],
  ]);
  assert.deepEqual(headlineOf('British-Airways-Kunden betroffen').entities, [
    ['british', 'airways', 'kunden'],
  ]);
  assert.ok(
    names(
      'Hackers stole data of 185,000 more British Airways customers',
      'British Airways says 185,000 more customers hit',
    ),
    'a figure with separators is still a name both share',
  );
});
