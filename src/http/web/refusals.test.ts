import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ErrorKind, type RefusalFacts, type SourceFailure, TidingsError } from '../../errors.js';
import { localeOf } from '../../i18n/locale.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { checkAccountInput } from '../../accounts/service.js';
import { fileRefusalWords, webRefusal } from './errors.js';

/**
 * Issue 36 point 1: what a form's refusal says comes from the catalogue, worded from the error's kind and
 * its facts, the limits as numbers: in the pseudo-locale en-XA no refusal a form can give has an English
 * word, whether its error carries facts or only an English message from below the transports.
 */

/** One refusal of each reason, with the facts a check gives it. */
const EACH_REASON: { [R in RefusalFacts['reason']]: Extract<RefusalFacts, { reason: R }> } = {
  feeds_limit: { reason: 'feeds_limit', limit: 500 },
  import_feeds_limit: { reason: 'import_feeds_limit', following: 600, adding: 401, limit: 1000 },
  opml_outlines_limit: { reason: 'opml_outlines_limit', listed: 50_000, limit: 2000 },
  feed_url_invalid: { reason: 'feed_url_invalid' },
  feed_url_too_long: { reason: 'feed_url_too_long', max: 2048 },
  filter_too_long: { reason: 'filter_too_long', max: 1000 },
  filter_invalid: { reason: 'filter_invalid', term: '/(?<=foo)bar/' },
  search_too_long: { reason: 'search_too_long', max: 200 },
  search_too_many_terms: { reason: 'search_too_many_terms', max: 16 },
  search_empty: { reason: 'search_empty' },
  search_only_excluded: { reason: 'search_only_excluded' },
  cannot_disable_self: { reason: 'cannot_disable_self' },
  cannot_unadmin_self: { reason: 'cannot_unadmin_self' },
  last_admin: { reason: 'last_admin' },
  confirm_name: { reason: 'confirm_name' },
  name_length: { reason: 'name_length', max: 200 },
  note_too_long: { reason: 'note_too_long', max: 500 },
  password_too_short: { reason: 'password_too_short', min: 10 },
  password_too_long: { reason: 'password_too_long', maxBytes: 1024 },
  email_invalid: { reason: 'email_invalid', email: 'ada@' },
  import_file_too_big: { reason: 'import_file_too_big', megabytes: 50 },
  import_too_many_links: { reason: 'import_too_many_links', limit: 100_000 },
  import_too_deep: { reason: 'import_too_deep', levels: 64 },
  import_server_busy: { reason: 'import_server_busy' },
  import_waiting: { reason: 'import_waiting', waiting: 2 },
  import_too_slow: { reason: 'import_too_slow', seconds: 120 },
  import_too_much_memory: { reason: 'import_too_much_memory' },
  zip_too_big: { reason: 'zip_too_big', megabytes: 200 },
  zip_too_many_files: { reason: 'zip_too_many_files', limit: 10_000 },
  setting_refused: {
    reason: 'setting_refused',
    field: 'timezone',
    refusal: { reason: 'zone_unknown', typed: 'Atlantis' },
  },
  feed_address_missing: { reason: 'feed_address_missing' },
  feed_address_invalid: { reason: 'feed_address_invalid', typed: 'not a url' },
  feed_search_slow: { reason: 'feed_search_slow', url: 'https://example.com/blog', seconds: 45 },
  feed_unreachable: {
    reason: 'feed_unreachable',
    url: 'https://example.com/blog',
    failure: 'http_status',
    status: 404,
  },
  feed_not_feed: { reason: 'feed_not_feed', url: 'https://example.com/blog' },
  feed_none_found: {
    reason: 'feed_none_found',
    url: 'https://example.com/blog',
    links: 2,
    paths: '/feed, /rss',
  },
};

/** Every way a feed address can fail to be read, each a case of feed_unreachable's words. */
const FAILURES: readonly SourceFailure[] = [
  'bad_url',
  'private_address',
  'dns',
  'connection',
  'tls',
  'timeout',
  'too_many_redirects',
  'http_status',
  'too_large',
  'decompression',
  'aborted',
  'gone',
  'not_modified',
];

const KINDS: readonly ErrorKind[] = [
  'url_missing',
  'url_invalid',
  'url_too_long',
  'title_invalid',
  'queue_full',
  'limit_reached',
  'account_gone',
  'invalid_input',
  'email_taken',
  'not_found',
  'source_failed',
];

const context = { queueLimit: 10_000 };
const pseudo = localeOf('en-XA');
/** What a refusal quotes of the person's own input, and the setting a limit names. */
const QUOTED = ['/(?<=foo)bar/', 'ada@', 'Atlantis', 'not a url', 'https://example.com/blog', '/feed, /rss'];

test('en-XA: each reason a form can be refused for has no English word', () => {
  for (const facts of Object.values(EACH_REASON)) {
    const err = new TidingsError('invalid_input', 'a developer’s English words', { facts });
    const message = webRefusal(err, context, pseudo)?.message ?? '';
    assert.notEqual(message, '');
    assert.deepEqual(englishWordsOf(message, QUOTED), [], `${facts.reason}: ${message}`);
    assert.equal(
      fileRefusalWords(err, pseudo, () => 'English'),
      message,
    );
  }
});

test('a feed address that gave no feed: every failure worded, in the pseudo-locale and in German', () => {
  const words = (failure: SourceFailure, language: string): string =>
    webRefusal(
      new TidingsError('source_failed', 'English', {
        facts: { reason: 'feed_unreachable', url: 'https://example.com/blog', failure, status: 503 },
      }),
      context,
      localeOf(language),
    )?.message ?? '';
  const seen = new Set<string>();
  for (const failure of FAILURES) {
    const message = words(failure, 'en-XA');
    assert.deepEqual(englishWordsOf(message, QUOTED), [], `${failure}: ${message}`);
    seen.add(words(failure, 'de'));
  }
  assert.equal(seen.size, FAILURES.length, 'each failure has words of its own');
  assert.equal(
    words('http_status', 'de'),
    'https://example.com/blog ließ sich nicht lesen: Die Website hat mit Status 503 geantwortet.',
  );
  assert.equal(
    words('http_status', 'en'),
    'https://example.com/blog could not be read: the site answered with status 503.',
  );
  const none = (links: number): string =>
    webRefusal(
      new TidingsError('source_failed', 'English', {
        facts: { reason: 'feed_none_found', url: 'https://example.com/', links, paths: '/feed, /rss' },
      }),
      context,
      localeOf('en'),
    )?.message ?? '';
  assert.equal(
    none(0),
    'No feed found at https://example.com/: the page links to none, and none of /feed, /rss answered with a feed.',
  );
  assert.match(none(1), /the page links to one, which is not a readable feed/);
  assert.match(none(3), /the page links to 3, none of them a readable feed/);
});

test('en-XA: an error without facts says its kind, never the English message from below', () => {
  for (const kind of KINDS) {
    const err = new TidingsError(kind, 'the feed at https://example.com/ said something in English');
    const message = webRefusal(err, context, pseudo)?.message ?? '';
    assert.deepEqual(englishWordsOf(message), [], `${kind}: ${message}`);
  }
  const unreadable = new TidingsError('invalid_input', 'not OPML: the root element is html');
  const file = fileRefusalWords(
    unreadable,
    pseudo,
    () => `That file cannot be imported: ${unreadable.message}.`,
  );
  assert.deepEqual(englishWordsOf(file), [], file);
});

test('English: the detail as it was without facts; the limits are the real constants, in English’s digits', () => {
  const english = localeOf('en');
  const bare = new TidingsError('not_found', 'there is no such invitation');
  assert.equal(webRefusal(bare, context, english)?.message, 'There is no such invitation.');
  const long = webRefusal(new TidingsError('url_too_long', 'url is 3000 characters long'), context, english);
  assert.equal(long?.message, 'That address is too long: at most 2048 characters.');
  const title = webRefusal(new TidingsError('title_invalid', 'title is too long'), context, english);
  assert.equal(title?.message, 'That title is too long: at most 1000 characters.');
  const follows = new TidingsError('limit_reached', 'the account follows 1 feed', {
    facts: EACH_REASON.feeds_limit,
  });
  assert.equal(
    webRefusal(follows, context, english)?.message,
    'The account follows 500 feeds, the most it may (TIDINGS_MAX_SUBSCRIPTIONS).',
  );
  const unreadable = new TidingsError('invalid_input', 'not OPML');
  assert.equal(
    fileRefusalWords(unreadable, english, () => 'That file cannot be imported: not OPML.'),
    'That file cannot be imported: not OPML.',
  );
});

test('real languages: plurals and numbers in their own forms', () => {
  const feeds = (n: number) =>
    new TidingsError('limit_reached', 'English', { facts: { reason: 'feeds_limit', limit: n } });
  assert.match(webRefusal(feeds(5), context, localeOf('pl'))?.message ?? '', /^Konto subskrybuje 5 kanałów,/);
  assert.match(webRefusal(feeds(2), context, localeOf('pl'))?.message ?? '', /^Konto subskrybuje 2 kanały,/);
  assert.match(webRefusal(feeds(2), context, localeOf('ar'))?.message ?? '', /^يتابع الحساب خلاصتين،/);
  const long = webRefusal(new TidingsError('url_too_long', 'English'), context, localeOf('de'));
  assert.equal(long?.message, 'Diese Adresse ist zu lang: höchstens 2.048 Zeichen.');
  const waiting = new TidingsError('limit_reached', 'English', { facts: EACH_REASON.import_waiting });
  assert.match(
    webRefusal(waiting, context, localeOf('fr'))?.message ?? '',
    /2 de vos imports attendent déjà/,
  );
});

test('an account made with a time zone Tidings does not know: refused as Settings refuses it, in German', () => {
  let refused: unknown;
  try {
    checkAccountInput({ name: 'Ada', timezone: 'Atlantis' });
  } catch (err) {
    refused = err;
  }
  assert.ok(refused instanceof TidingsError);
  assert.equal(
    refused.message,
    'unknown time zone "Atlantis": type a city such as Berlin or New York, or an IANA name such as Europe/Berlin',
  );
  assert.match(webRefusal(refused, context, localeOf('de'))?.message ?? '', /^Zeitzone: .*„Atlantis“/);
});
