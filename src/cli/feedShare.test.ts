import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantAccount } from '../accounts/authorize.js';
import { setDigestShare } from '../accounts/digestShare.js';
import { isTidingsError } from '../errors.js';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { queueFeedItem } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { runCli } from './run.js';

/** A feed's share of the digest from the command line: `feed set --per-digest/--priority`, `feed list`. */

interface Run {
  code: number;
  out: string[];
  err: string[];
}

await describeEachEngine('feed set: a feed’s share of the digest', (ctx) => {
  const cli = async (...args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent' },
    });
    return { code, out, err };
  };
  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.err.join('\n'));
    return r;
  };

  /** An account following two feeds: its id and its subscriptions' ids. */
  async function follower() {
    const { id } = await newAccount(ctx.store());
    for (const name of ['one', 'two']) {
      await queueFeedItem(ctx.store(), id, {
        feedUrl: `https://${name}${id}.example/feed.xml`,
        feedTitle: `Feed ${name}`,
        url: `https://${name}${id}.example/1`,
        title: 'An item',
      });
    }
    const subs = await subscriptionsByAccount(ctx.store().db, id);
    const [first, second] = subs.map((s) => String(s.id));
    assert.ok(first !== undefined && second !== undefined);
    return { account: String(id), first, second };
  }

  test('feed set --per-digest and --priority change one subscription; feed list shows them, text and --json', async () => {
    const { account, first, second } = await follower();
    const before = ok(await cli('feed', 'list', '--account', account, '--json'));
    const fresh = JSON.parse(before.out[0] ?? '') as Record<string, unknown>;
    assert.deepEqual(
      [fresh.perDigest, fresh.perDigestDefault, fresh.priority, fresh.mutedUntil],
      [3, true, 'normal', null],
    );
    // Every earlier field is still there.
    for (const key of [
      'id',
      'feedId',
      'url',
      'title',
      'itemCount',
      'skippedItems',
      'readLeniently',
      'fetchOriginal',
    ]) {
      assert.ok(key in fresh, key);
    }

    const set = ok(
      await cli('feed', 'set', '--account', account, first, '--per-digest', 'all', '--priority', 'high'),
    );
    assert.deepEqual(set.out, [
      `Subscription ${first}: each digest shows all of its entries.`,
      `Subscription ${first}: priority high.`,
    ]);
    ok(await cli('feed', 'set', '--account', account, second, '--per-digest', '0'));
    const zero = ok(await cli('feed', 'set', '--account', account, second, '--priority', 'low'));
    assert.deepEqual(zero.out, [`Subscription ${second}: priority low.`]);

    const list = ok(await cli('feed', 'list', '--account', account));
    const [header, ...rows] = list.out.map((l) => l.split('\t'));
    assert.deepEqual(header?.slice(10), ['PER DIGEST', 'PRIORITY', 'MUTED UNTIL']);
    assert.deepEqual(
      rows.map((r) => r.slice(10)),
      [
        ['all', 'high', '-'],
        ['0', 'low', '-'],
      ],
    );
    const json = ok(await cli('feed', 'list', '--account', account, '--json')).out.map(
      (l) => JSON.parse(l) as { perDigest: unknown; perDigestDefault: boolean; priority: string },
    );
    assert.deepEqual(
      json.map((j) => [j.perDigest, j.perDigestDefault, j.priority]),
      [
        ['all', false, 'high'],
        [0, false, 'low'],
      ],
    );

    // Back to the default; a number; a mute shown until it ends, and --unmute.
    const back = ok(await cli('feed', 'set', '--account', account, first, '--per-digest', 'default'));
    assert.deepEqual(back.out, [
      `Subscription ${first}: each digest shows up to 3 of its entries (the default).`,
    ]);
    ok(await cli('feed', 'set', '--account', account, second, '--per-digest', '12'));
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await setDigestShare(ctx.store(), grantAccount(Number(account)), Number(second), { mutedUntil: until });
    const shown = ok(await cli('feed', 'list', '--account', account)).out.map((l) => l.split('\t').slice(10));
    assert.deepEqual(shown.slice(1), [
      ['3 (default)', 'high', '-'],
      ['12', 'low', until],
    ]);
    const unmuted = ok(await cli('feed', 'set', '--account', account, second, '--unmute'));
    assert.deepEqual(unmuted.out, [`Subscription ${second}: not muted.`]);
    const last = JSON.parse(ok(await cli('feed', 'list', '--account', account, '--json')).out[1] ?? '') as {
      perDigest: number;
      mutedUntil: string | null;
    };
    assert.deepEqual([last.perDigest, last.mutedUntil], [12, null]);
  });

  test('bad values are usage errors (exit 2) and change nothing; another account’s subscription is not found', async () => {
    const { account, first } = await follower();
    const other = await follower();
    const cases: [string[], RegExp][] = [
      [
        ['--per-digest', '101'],
        /--per-digest must be all, default or a whole number from 0 to 100, not "101"/,
      ],
      [['--per-digest', '-1'], /--per-digest must be/],
      [['--per-digest', '2.5'], /--per-digest must be/],
      [['--per-digest', 'many'], /--per-digest must be/],
      [['--priority', 'urgent'], /--priority must be high, normal or low, not "urgent"/],
      [['--per-digest', '3', '--priority', 'HIGH'], /--priority must be/],
      [[], /give --per-digest, --priority, --unmute or --fetch-original/],
    ];
    for (const [flags, message] of cases) {
      const r = await cli('feed', 'set', '--account', account, first, ...flags);
      assert.equal(r.code, 2, flags.join(' '));
      assert.match(r.err.join('\n'), message);
    }
    const [sub] = await subscriptionsByAccount(ctx.store().db, Number(account));
    assert.deepEqual([sub?.perDigest, sub?.perDigestDefault, sub?.priority], [3, true, 'normal']);

    const foreign = await cli('feed', 'set', '--account', account, other.first, '--per-digest', '5');
    assert.equal(foreign.code, 1);
    assert.match(
      foreign.err.join('\n'),
      new RegExp(`account ${account} has no feed subscription ${other.first}`),
    );
    const [theirs] = await subscriptionsByAccount(ctx.store().db, Number(other.account));
    assert.equal(theirs?.perDigestDefault, true);
  });

  test('setDigestShare refuses what is out of range with invalid_input, whoever calls it', async () => {
    const { account, first } = await follower();
    const id = grantAccount(Number(account));
    for (const perDigest of [101, -1, 2.5, Number.NaN]) {
      await assert.rejects(
        setDigestShare(ctx.store(), id, Number(first), { perDigest }),
        (err) => isTidingsError(err, 'invalid_input'),
        String(perDigest),
      );
    }
    await assert.rejects(setDigestShare(ctx.store(), id, Number(first), { mutedUntil: 'next week' }), (err) =>
      isTidingsError(err, 'invalid_input'),
    );
    const stored = await setDigestShare(ctx.store(), id, Number(first), { perDigest: 100, priority: 'low' });
    assert.deepEqual([stored.perDigest, stored.perDigestDefault, stored.priority], [100, false, 'low']);
    await assert.rejects(setDigestShare(ctx.store(), id, 999_999, { priority: 'high' }), (err) =>
      isTidingsError(err, 'not_found'),
    );
  });
});
