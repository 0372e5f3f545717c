import assert from 'node:assert/strict';
import { test } from 'node:test';
import { saveUrl } from '../test/digestPipeline.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount } from '../test/harness.js';

/** `tidings search`, run in-process as the binary runs it. */
await describeEachEngine('search command', (ctx) => {
  const cli = cliOn(() => ctx.url(), { LOG_LEVEL: 'silent', TIDINGS_BASE_URL: 'https://tidings.example' });

  test('prints hits as lines or one JSON line each; an invalid query exits 2, an unknown account 1', async () => {
    const a = await newAccount(ctx.store());
    const b = await newAccount(ctx.store());
    await saveUrl(ctx.store(), a.id, 'https://owls.example/barn', 'The barn owl hunts at dusk');
    await saveUrl(ctx.store(), a.id, 'https://owls.example/snowy', 'Snowy owl <b>winters</b>');
    await saveUrl(ctx.store(), b.id, 'https://owls.example/other', 'Another owl');

    const json = await cli('search', '--account', String(a.id), '--json', '--', 'owl', '-snowy');
    assert.equal(json.code, 0, json.err.join('\n'));
    assert.equal(json.out.length, 1);
    const hit = JSON.parse(json.out[0] ?? '') as Record<string, unknown>;
    assert.deepEqual(
      { ...hit, itemId: typeof hit.itemId, at: typeof hit.at },
      {
        kind: 'queue',
        itemId: 'number',
        digestId: null,
        digestDate: null,
        at: 'string',
        url: 'https://owls.example/barn',
        site: 'owls.example',
        title: 'The barn owl hunts at dusk',
        snippet: '',
        titleSegments: [
          { text: 'The barn ', mark: false },
          { text: 'owl', mark: true },
          { text: ' hunts at dusk', mark: false },
        ],
        snippetSegments: [],
      },
    );

    const human = await cli('search', '--account', String(a.id), 'owl');
    assert.equal(human.code, 0, human.err.join('\n'));
    assert.equal(human.out[0], '2 hits, 1–2 shown:');
    assert.ok(
      human.out.includes('[queued]  Snowy **owl** <b>winters</b> (owls.example)'),
      human.out.join('\n'),
    );
    assert.ok(human.out.includes('  https://owls.example/barn'));

    const paged = await cli(
      'search',
      '--account',
      String(a.id),
      '--limit',
      '1',
      '--offset',
      '1',
      '--json',
      'owl',
    );
    assert.equal(paged.out.length, 1);

    const none = await cli('search', '--account', String(a.id), 'pelican');
    assert.deepEqual([none.code, none.out], [0, ['Nothing found for pelican.']]);

    const bad = await cli('search', '--account', String(a.id), '--', '-owl');
    assert.equal(bad.code, 2);
    assert.match(bad.err.join('\n'), /cannot only leave words out/);
    const long = await cli('search', '--account', String(a.id), 'x'.repeat(201));
    assert.equal(long.code, 2);
    assert.match(long.err.join('\n'), /at most 200 characters/);
    const unknown = await cli('search', '--account', '999999', 'owl');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err.join('\n'), /999999/);
  });
});
