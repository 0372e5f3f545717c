import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TidingsError } from '../../errors.js';
import { parseOpml } from './opmlRead.js';
import { readOpml } from './opmlThread.js';

/** Reading an OPML file in a thread of its own: the same outlines as parseOpml, or the same refusals. */

const opmlOf = (n: number): Buffer =>
  Buffer.from(
    `<opml version="2.0"><body><outline text="Folder">${Array.from(
      { length: n },
      (_, i) => `<outline text="Feed ${i}" xmlUrl="http://g${i}.invalid/f"/>`,
    ).join('')}</outline></body></opml>`,
  );

const refusal = async (promise: Promise<unknown>): Promise<[string, string]> => {
  const err = await promise.then(
    () => assert.fail('not refused'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof TidingsError, String(err));
  return [err.kind, err.message];
};

test('the outlines come back as parseOpml reads them, in order, over several chunks', async () => {
  const file = opmlOf(1234);
  assert.deepEqual(await readOpml(file, 2000), parseOpml(file));
});

test('a file listing more feeds than the limit is refused in the thread, the limit named', async () => {
  assert.deepEqual(await refusal(readOpml(opmlOf(11), 10)), [
    'limit_reached',
    'the file lists 11 feeds; one import may list at most 10 (TIDINGS_MAX_OPML_OUTLINES)',
  ]);
  assert.equal((await readOpml(opmlOf(10), 10)).length, 10);
});

test('a file that is not OPML is refused as parseOpml refuses it', async () => {
  assert.deepEqual(await refusal(readOpml(Buffer.from('<rss version="2.0"/>'), 10)), [
    'invalid_input',
    'not an OPML file: the document is <rss>, not <opml>',
  ]);
  assert.deepEqual(await readOpml(Buffer.from('<opml version="2.0"><body/></opml>'), 10), []);
});
