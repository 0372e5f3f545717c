import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TidingsError } from '../../errors.js';
import { localeOf } from '../../i18n/locale.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { sentence, webRefusal } from './errors.js';

test('a message is made a sentence: a capital first letter and a full stop', () => {
  assert.equal(sentence('that feed is already yours'), 'That feed is already yours.');
  assert.equal(sentence('done!'), 'Done!');
});

test('a message that starts with an address or a host name keeps it as written (issue 13, bug 4)', () => {
  assert.equal(
    sentence('http://127.0.0.1:9100/broken.xml is not a feed (no items), nor a web page linking to one'),
    'http://127.0.0.1:9100/broken.xml is not a feed (no items), nor a web page linking to one.',
  );
  assert.equal(
    sentence('nonexistent.invalid was not found in DNS'),
    'nonexistent.invalid was not found in DNS.',
  );
  assert.equal(sentence('127.0.0.1 refused the connection'), '127.0.0.1 refused the connection.');
  const refusal = webRefusal(new TidingsError('source_failed', 'https://example.com/feed is gone'), {
    queueLimit: 10,
  });
  assert.equal(refusal?.message, 'https://example.com/feed is gone.');
});

test('a refusal is in the reader’s language, by the error’s kind (issue 36); English as it was', () => {
  const pseudo = localeOf('en-XA');
  for (const kind of ['url_missing', 'url_invalid', 'url_too_long', 'title_invalid', 'queue_full'] as const) {
    const refusal = webRefusal(new TidingsError(kind, 'a developer’s words'), { queueLimit: 10 }, pseudo);
    assert.ok(refusal !== null);
    assert.deepEqual(englishWordsOf(refusal.message), [], `${kind}: ${refusal.message}`);
  }
  const full = new TidingsError('queue_full', 'queue full');
  assert.equal(
    webRefusal(full, { queueLimit: 5 })?.message,
    'Your queue is full: it holds 5 links, the most it may. It empties when your next digest is built; removing links makes room now.',
  );
  assert.match(webRefusal(full, { queueLimit: 5 }, localeOf('ar'))?.message ?? '', /^قائمة انتظارك ممتلئة/);
  // A kind whose words come from below the transports, without facts: what kind of refusal it is, in the
  // language, never the English detail (src/http/web/refusals.test.ts covers each reason with facts).
  const gone = new TidingsError('source_failed', 'https://example.com/feed is gone');
  assert.equal(
    webRefusal(gone, { queueLimit: 5 }, localeOf('ar'))?.message,
    'تعذّرت قراءة هذا العنوان: لم يُعثر فيه على خلاصة ولا صفحة.',
  );
});
