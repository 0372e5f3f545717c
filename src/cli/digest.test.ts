import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DateTime } from 'luxon';
import type { Account } from '../store/accounts.js';
import { digestsOf, saveUrl, setDueAt } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { runCli } from './run.js';

/** `account set / show` and `digest run / list / show`, run in-process as `tidings …` would run them. */

interface Run {
  code: number;
  out: string[];
  err: string[];
}

await describeEachEngine('digest commands', (ctx) => {
  let smtp: SmtpTestServer;
  before(async () => {
    smtp = await SmtpTestServer.start();
  });
  after(() => smtp.close());

  const run = async (env: NodeJS.ProcessEnv, args: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: {
        DATABASE_URL: ctx.url(),
        LOG_LEVEL: 'silent',
        TIDINGS_BASE_URL: 'https://tidings.example',
        ...env,
      },
    });
    return { code, out, err };
  };
  const cli = (...args: string[]): Promise<Run> => run({}, args);
  const withSmtp = (...args: string[]): Promise<Run> =>
    run({ TIDINGS_SMTP_URL: smtp.url(), TIDINGS_MAIL_FROM: 'Tidings <digest@tidings.example>' }, args);
  const ok = (r: Run): Run => {
    assert.equal(r.code, 0, r.err.join('\n'));
    return r;
  };
  const shown = async (id: number): Promise<Account> => {
    const r = ok(await cli('account', 'show', '--account', String(id), '--json'));
    return JSON.parse(r.out[0] ?? '') as Account;
  };

  test('account set changes each setting, and a new schedule recomputes the next digest', async () => {
    const { id } = await newAccount(ctx.store());
    const before = await shown(id);
    assert.deepEqual(
      [before.digest_time, before.digest_days, before.digest_max_items, before.digest_skip_empty],
      ['07:00', 'mon,tue,wed,thu,fri,sat,sun', 100, true],
    );
    assert.ok(before.digest_due_at !== null && before.digest_due_at > new Date().toISOString());

    const r = ok(
      await cli(
        'account',
        'set',
        '--account',
        String(id),
        '--timezone',
        'america/new_york',
        '--time',
        '6:30',
        '--days',
        'mon-fri',
        '--max-items',
        '20',
        '--email',
        'reader@example.org',
        '--email-enabled',
        'false',
        '--skip-empty',
        'false',
      ),
    );
    const text = r.out.join('\n');
    assert.match(text, /time zone\s+America\/New_York/);
    assert.match(text, /days\s+mon-fri/);
    assert.match(text, /next digest\s+\d{4}-\d{2}-\d{2} 06:30 America\/New_York/);

    const after = await shown(id);
    assert.deepEqual(
      [
        after.timezone,
        after.digest_time,
        after.digest_days,
        after.digest_max_items,
        after.email,
        after.email_enabled,
        after.digest_skip_empty,
      ],
      ['America/New_York', '06:30', 'mon,tue,wed,thu,fri', 20, 'reader@example.org', false, false],
    );
    const due = DateTime.fromISO(after.digest_due_at ?? '', { zone: 'America/New_York' });
    assert.ok(due.toMillis() > Date.now() && due.toMillis() < Date.now() + 4 * 86_400_000);
    assert.deepEqual([due.hour, due.minute, due.weekday <= 5], [6, 30, true]);

    // Only what is given changes; no schedule option, no new due time.
    ok(await cli('account', 'set', '--account', String(id), '--email', '', '--max-items', '5'));
    const last = await shown(id);
    assert.deepEqual([last.email, last.digest_max_items, last.digest_time], [null, 5, '06:30']);
    assert.equal(last.digest_due_at, after.digest_due_at);
    const list = ok(await cli('account', 'list'));
    assert.ok(list.out.some((l) => l.startsWith(`${id}\t`) && l.includes('\t06:30\tmon-fri\t5\t')));
  });

  test('account set refuses bad input with exit code 2 and says what is wrong', async () => {
    const id = String((await newAccount(ctx.store())).id);
    const cases: [string[], RegExp][] = [
      [['--timezone', 'Mars/Olympus'], /--timezone: unknown time zone "Mars\/Olympus"/],
      [['--timezone', '+05:00'], /--timezone: unknown time zone/],
      [['--time', '25:00'], /--time: must be HH:MM from 00:00 to 23:59, not "25:00"/],
      [['--time', '7'], /--time: must be HH:MM/],
      [['--days', 'funday'], /--days: "funday" is not a list of days/],
      [['--days', 'mon-'], /--days: "mon-" is not a list of days/],
      [['--max-items', '0'], /--max-items: must be at least 1/],
      [['--max-items', '12.5'], /--max-items: must be a whole number/],
      [['--max-items', '100001'], /--max-items: must be at most 10000/],
      [['--email', 'nope'], /--email: not an email address: "nope" \(no @\)/],
      [['--email', 'x<a@evil.test>'], /--email: not an email address: "x<a@evil.test>"/],
      [['--email-enabled', 'maybe'], /--email-enabled: must be true or false, not "maybe"/],
      [['--skip-empty', 'yes'], /--skip-empty: must be true or false/],
      [['--images', 'off'], /--images: must be true or false, not "off"/],
      [['--clean-links', '0'], /--clean-links: must be true or false, not "0"/],
      [[], /nothing to change/],
    ];
    for (const [args, message] of cases) {
      const r = await cli('account', 'set', '--account', id, ...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err.join('\n'), message);
    }
    const both = await cli('account', 'set', '--account', id, '--time', 'x', '--days', 'y');
    assert.match(both.err.join('\n'), /--time: .*; --days: /);
    assert.equal((await cli('account', 'set', '--account', 'abc', '--time', '07:00')).code, 2);
    const missing = await cli('account', 'set', '--account', '987654', '--time', '07:00');
    assert.equal(missing.code, 1);
    assert.match(missing.err.join('\n'), /no account 987654/);
    assert.equal((await shown(Number(id))).digest_time, '07:00', 'nothing changed');
  });

  test('account set --images and --clean-links switch images and link cleaning; show prints them', async () => {
    const id = String((await newAccount(ctx.store())).id);
    const fresh = await shown(Number(id));
    assert.deepEqual([fresh.show_images, fresh.clean_links], [true, true], 'both on by default');
    const r = ok(await cli('account', 'set', '--account', id, '--images', 'false', '--clean-links', 'false'));
    assert.match(r.out.join('\n'), /images\s+no\n\s+clean links\s+no/);
    const off = await shown(Number(id));
    assert.deepEqual([off.show_images, off.clean_links], [false, false]);
    ok(await cli('account', 'set', '--account', id, '--images', 'true'));
    const on = await shown(Number(id));
    assert.deepEqual([on.show_images, on.clean_links], [true, false], 'only what is given changes');
  });

  test('digest run builds what is due, list shows it, show prints it as text or HTML', async () => {
    const { id, apiKey } = await newAccount(ctx.store());
    assert.ok(apiKey.length > 0);
    await setDueAt(ctx.store(), id, new Date(Date.now() - 60_000).toISOString());
    await saveUrl(ctx.store(), id, 'https://cli-digest.example/one', 'One & only');
    await saveUrl(ctx.store(), id, 'https://cli-digest.example/two');

    const runOut = ok(await cli('digest', 'run', '--account', String(id)));
    assert.match(
      runOut.out.join('\n'),
      /^account \d+: built digest \d+ for \d{4}-\d{2}-\d{2} with 2 items$/m,
    );
    const [digest] = await digestsOf(ctx.store(), id);
    assert.ok(digest !== undefined);
    assert.match(ok(await cli('digest', 'run', '--account', String(id))).out.join('\n'), /Nothing is due/);

    const table = ok(await cli('digest', 'list', '--account', String(id)));
    assert.deepEqual(table.out, [
      'ID\tDATE\tITEMS\tQUEUED\tDELIVERY',
      `${digest.id}\t${digest.local_date}\t2\t0\tnot emailed (email off or no address)`,
    ]);
    const json = ok(await cli('digest', 'list', '--account', String(id), '--json'));
    const line = JSON.parse(json.out[0] ?? '') as Record<string, unknown>;
    assert.deepEqual(
      [line.id, line.date, line.items, line.remaining, line.delivery],
      [digest.id, digest.local_date, 2, 0, 'not_emailed'],
    );

    const text = ok(await cli('digest', 'show', String(digest.id))).out.join('\n');
    assert.match(text, /One & only/);
    assert.match(text, /https:\/\/cli-digest\.example\/two/);
    const html = ok(await cli('digest', 'show', String(digest.id), '--format', 'html')).out.join('\n');
    assert.match(html, /^<!DOCTYPE html>/);
    assert.match(html, /One &amp; only/);

    const bad = await cli('digest', 'show', String(digest.id), '--format', 'pdf');
    assert.equal(bad.code, 2);
    assert.match(bad.err.join('\n'), /--format must be text or html/);
    const none = await cli('digest', 'show', '987654');
    assert.equal(none.code, 1);
    assert.match(none.err.join('\n'), /no digest 987654/);
    assert.equal((await cli('digest', 'list', '--account', '987654')).code, 1);
    assert.equal((await cli('digest', 'run', '--account', '987654')).code, 1);
  });

  test('digest run --force builds now, skipping an empty queue; emails go out and failures show', async () => {
    const { id } = await newAccount(ctx.store());
    ok(
      await cli(
        'account',
        'set',
        '--account',
        String(id),
        '--email',
        'cli@example.org',
        '--skip-empty',
        'false',
      ),
    );
    const empty = ok(await withSmtp('digest', 'run', '--account', String(id), '--force'));
    assert.match(empty.out.join('\n'), /the queue is empty, no digest/);

    await saveUrl(ctx.store(), id, 'https://cli-digest.example/forced');
    const forced = ok(await withSmtp('digest', 'run', '--account', String(id), '--force', '--json'));
    const outcomes = forced.out.map((l) => JSON.parse(l) as { status: string });
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['built', 'sent'],
    );
    assert.equal(smtp.messages.length, 1);
    assert.match(ok(await cli('digest', 'list', '--account', String(id))).out[1] ?? '', /\tsent 20/);

    // A second --force the same day: one digest a day, said plainly with the next one's time, exit 3.
    await saveUrl(ctx.store(), id, 'https://cli-digest.example/after');
    const built = JSON.parse(forced.out[0] ?? '') as { digestId: number; localDate: string };
    const again = await withSmtp('digest', 'run', '--account', String(id), '--force', '--json');
    assert.equal(again.code, 3, again.err.join('\n'));
    const line = JSON.parse(again.out[0] ?? '') as { nextDigestAt: string };
    assert.deepEqual(line, {
      status: 'exists',
      accountId: id,
      localDate: built.localDate,
      digestId: built.digestId,
      nextDigestAt: line.nextDigestAt,
    });
    const due = await shown(id);
    // The stored schedule is left as it is (build.ts buildDigestNow): before the day's slot (07:00 UTC)
    // it still names today's, which will find the day taken; the answer names the digest that will come.
    assert.ok(line.nextDigestAt > new Date().toISOString());
    assert.ok(
      due.digest_due_at !== null && line.nextDigestAt >= due.digest_due_at,
      'never before the schedule',
    );
    assert.ok(line.nextDigestAt.slice(0, 10) > built.localDate, 'not the day that has its digest');
    assert.match(again.err.join('\n'), /built no second digest for 1 account whose day has one already/);
    const words = await withSmtp('digest', 'run', '--account', String(id), '--force');
    assert.equal(words.code, 3);
    assert.match(
      words.out[0] ?? '',
      /already has its digest \(\d+\), and Tidings builds one digest a day: nothing was built now; the queue waits for the next, \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );

    // The next day's digest meets a server that refuses the recipient for good.
    const other = (await newAccount(ctx.store())).id;
    ok(await cli('account', 'set', '--account', String(other), '--email', 'gone@example.org'));
    await saveUrl(ctx.store(), other, 'https://cli-digest.example/refused');
    smtp.fail({ step: 'RCPT', action: 'reply', code: 550, message: '5.1.1 No such user' });
    try {
      const refused = ok(await withSmtp('digest', 'run', '--account', String(other), '--force'));
      assert.match(refused.out.join('\n'), /email failed: .*550/);
    } finally {
      smtp.fail();
    }
    const listed = ok(await cli('digest', 'list', '--account', String(other))).out[1] ?? '';
    assert.match(listed, /\tfailed after 1 attempt: .*550.*No such user/);
  });
});
