import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TidingsError } from '../../errors.js';
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
