import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setOperatorLanguage } from '../i18n/locale.js';
import { type CliRun, cliOn } from '../test/cliRun.js';
import { englishWordsOf } from '../test/englishWords.js';
import { hoursAgo, serveFeed } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine } from '../test/harness.js';

/**
 * Issue 36 point 1, the commands cliLanguage.test.ts does not cover: feed, digest, search, client,
 * newsletters, opml, import, enrich, poll, backup, migrate, healthcheck and the account's admin, feed-url,
 * opds-url and password commands, their human lines and their refusals, print no English word in the
 * pseudo-locale en-XA once what the operator types or copies is taken out (flags, settings, commands,
 * paths, the fixture's names). What lower layers say (a feed's own error, a file's bad rows) is not theirs.
 */

const testdata = (name: string) => fileURLToPath(new URL(`../imports/testdata/${name}`, import.meta.url));

/** The words of CLI output, with what the operator types or copies taken out. */
function wordsOf(lines: readonly string[], content: readonly string[]): string[] {
  const text = lines
    .flatMap((l) => l.split('\n'))
    // A command line to copy (pg_dump's); `backup` names the command.
    .filter((l) => !/^\s*pg_dump /.test(l))
    .join('\n')
    .replace(/^tidings: backup /gm, ' ')
    // Links, paths and addresses first (a setting's capitals inside one would cut it), then secrets,
    // ids and tokens: whatever holds a digit.
    .replace(/\b(?:https?|mailto):[^\s<>"]+/g, ' ')
    .replace(/(?:^|\s)\/\S+/g, ' ')
    .replace(/\S+@\S+/g, ' ')
    .replace(/\S*\d\S*/g, ' ')
    .replace(/^tidings: /gm, ' ')
    // What the operator typed, quoted back in a refusal.
    .replace(/["“][^"”\n]*["”]/g, ' ')
    .replace(/`?tidings(?: [a-z-]+)+(?: --[a-z-]+(?: [A-Z0-9]+)?)*`?/g, ' ')
    // Flags, settings (PORT, TIDINGS_METRICS_HOST=…) and the units of sizes and durations.
    .replace(/--[a-z-]+/g, ' ')
    .replace(/\b[A-Z][A-Z0-9_]+(?:=\S*)?/g, ' ')
    .replace(/(?:^|\s)(?:KiB|MiB|ms|s)\b/g, ' ');
  return englishWordsOf(text, content);
}

await describeEachEngine('cli: the operator’s language, every command', (ctx) => {
  let server: FeedServer;
  let dir: string;
  const cli = cliOn(() => ctx.url(), {
    TIDINGS_BASE_URL: 'https://tidings.example',
    TIDINGS_LANGUAGE: 'en-XA',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'silent',
    TIDINGS_INBOUND_DOMAIN: 'in.tidings.example',
  });
  // The fixture's own text, and the names of engines, tools and formats the lines quote.
  const CONTENT = [
    'Tide tables',
    'Spring tides',
    'cli.example',
    'Kobo',
    'Ada',
    'sqlite',
    'postgres',
    'SQLite',
    'PostgreSQL',
    'pg_dump',
    'xmlUrl',
    'http(s)',
    'SMTP',
    'EPUB',
    'API',
    'ECONNREFUSED',
    // Words the commands are given.
    'spring',
    'Spring',
    'tides',
    'nowhere',
  ];

  before(async () => {
    server = await FeedServer.start('127.0.0.1');
    dir = await mkdtemp(join(tmpdir(), 'tidings-cli-language-'));
  });
  after(async () => {
    setOperatorLanguage('en');
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Each run's lines, stdout and stderr, with the command line for the failure message. */
  const said: [string, string[]][] = [];
  const run = async (code: number, ...args: string[]): Promise<CliRun> => {
    const r = await cli(...args);
    assert.equal(r.code, code, `${args.join(' ')}: ${[...r.out, ...r.err].join('\n')}`);
    said.push([args.join(' '), [...r.out, ...r.err]]);
    return r;
  };
  const noEnglish = (): void => {
    const left = said.splice(0).flatMap(([command, lines]) => {
      assert.ok(lines.length > 0, `${command} printed nothing`);
      const words = wordsOf(lines, CONTENT);
      return words.length === 0 ? [] : [`${command}: ${words.join(' ')}\n${lines.join('\n')}`];
    });
    assert.deepEqual(left, []);
  };
  const newAccountId = async (): Promise<string> => {
    const made = await cli('account', 'create', '--name', 'Ada', '--json');
    return String((JSON.parse(made.out[0] ?? '') as { id: number }).id);
  };

  test('en-XA: feed, search, opml, digest and import commands print no English word', async () => {
    const id = await newAccountId();
    const feed = serveFeed(server, '/tides.xml', {
      title: 'Tide tables',
      items: [{ link: 'https://cli.example/spring', title: 'Spring tides', published: hoursAgo(1) }],
    });
    await run(0, 'feed', 'add', '--account', id, feed.url);
    await run(0, 'feed', 'add', '--account', id, feed.url);
    // Discovery's refusals, worded from their facts.
    await run(1, 'feed', 'add', '--account', id, 'not a url');
    await run(1, 'feed', 'add', '--account', id, server.url('/missing.xml'));
    const listed = await run(0, 'feed', 'list', '--account', id);
    const sub = /^(\d+)\t/m.exec(listed.out.join('\n'))?.[1] ?? '';
    assert.notEqual(sub, '');
    await run(0, 'feed', 'filter', '--account', id, sub, '--exclude', '');
    await run(0, 'feed', 'set', '--account', id, sub, '--per-digest', '5', '--priority', 'high', '--unmute');
    await run(0, 'feed', 'set', '--account', id, sub, '--per-digest', '0', '--fetch-original', 'true');
    await run(0, 'feed', 'set', '--account', id, sub, '--per-digest', 'all', '--fetch-original', 'false');
    await run(2, 'feed', 'set', '--account', id, sub);
    await run(2, 'feed', 'set', '--account', id, sub, '--per-digest', 'many');
    await run(2, 'feed', 'set', '--account', id, sub, '--priority', 'urgent');
    await run(2, 'feed', 'set', '--account', id, sub, '--fetch-original', 'maybe');
    await run(2, 'feed', 'list', '--account', 'Ada');
    await run(0, 'search', '--account', id, 'spring');
    await run(0, 'search', '--account', id, 'nowhere');
    await run(0, 'search', '--account', id, '--offset', '5', 'spring');

    const opml = join(dir, 'list.opml');
    await writeFile(opml, (await cli('opml', 'export', '--account', id)).out.join('\n'));
    await run(0, 'opml', 'import', '--account', id, opml);
    // The system's reason (ENOENT: no such file …) after the sentence is not the catalogue's.
    const missing = await cli('opml', 'import', '--account', id, join(dir, 'missing.opml'));
    assert.equal(missing.code, 1);
    said.push(['opml import missing', missing.err.map((l) => l.replace(/ENOENT: .*$/, ''))]);

    const bad = join(dir, 'bad.xml');
    await writeFile(bad, 'not a feed');
    const parsed = await cli('feed', 'parse', bad);
    said.push(['feed parse', parsed.err]);
    await run(2, 'feed', 'parse', '--base-url', 'nowhere', bad);

    await run(0, 'digest', 'run', '--account', id);
    await run(0, 'digest', 'run', '--account', id, '--force');
    await run(3, 'digest', 'run', '--account', id, '--force');
    await run(0, 'digest', 'list', '--account', id);
    await run(2, 'digest', 'show', 'first');
    await run(1, 'digest', 'show', '999999999');
    await run(2, 'digest', 'show', '1', '--format', 'pdf');

    // The counts line; the bad rows on stderr are the file's own words (src/imports/).
    const imported = await cli('import', '--account', id, testdata('pocket.csv'));
    said.push(['import', imported.out]);
    await run(0, 'enrich', '--account', id);
    await run(0, 'poll', '--once');
    await run(0, 'feed', 'remove', '--account', id, sub);
    noEnglish();
  });

  test('en-XA: account admin, clients, newsletters, backup, migrate and healthcheck print no English word', async () => {
    const id = await newAccountId();
    await run(0, 'client', 'create', '--account', id, '--name', 'Kobo');
    const clients = await run(0, 'client', 'list', '--account', id);
    const clientId = /^(\d+)\t/m.exec(clients.out.join('\n'))?.[1] ?? '';
    await run(0, 'client', 'revoke', '--account', id, clientId);
    await run(0, 'newsletters', 'list', '--account', id);
    await run(0, 'newsletters', 'address', '--account', id, '--rotate');
    await run(0, 'account', 'feed-url', '--account', id, '--rotate');
    await run(0, 'account', 'opds-url', '--account', id);
    await run(0, 'account', 'opds-url', '--account', id, '--revoke');
    await run(0, 'account', 'opds-url', '--account', id, '--revoke');
    await run(0, 'account', 'password', '--account', id, '--clear');
    await run(0, 'account', 'disable', '--account', id);
    await run(0, 'account', 'enable', '--account', id);
    await run(2, 'account', 'set', '--account', id);
    await run(2, 'account', 'delete', '--account', id);
    await run(0, 'account', 'delete', '--account', id, '--yes');
    await run(1, 'client', 'list', '--account', '999999999');
    await run(0, 'migrate');
    await run(2, 'healthcheck', '--timeout-ms', '999999');
    const backup = await cli('backup', join(dir, 'copy.db'));
    said.push(['backup', [...backup.out, ...backup.err]]);
    noEnglish();
  });

  test('a real language: German counts its entries, Japanese ends its sentences its own way', async () => {
    const de = cliOn(() => ctx.url(), { TIDINGS_LANGUAGE: 'de', TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true' });
    const id = await newAccountId();
    const feed = serveFeed(server, '/de.xml', {
      title: 'Tide tables',
      items: [
        { link: 'https://cli.example/de1', title: 'Eins', published: hoursAgo(1) },
        { link: 'https://cli.example/de2', title: 'Zwei', published: hoursAgo(2) },
      ],
    });
    const added = await de('feed', 'add', '--account', id, feed.url);
    assert.equal(added.code, 0, added.err.join('\n'));
    assert.match(added.out.join('\n'), /^2 Einträge des letzten Tages in die Warteschlange gestellt\.$/m);
    assert.deepEqual((await de('feed', 'add', '--account', id, 'not a url')).err, [
      'tidings: „not a url“ ist keine Webadresse.',
    ]);
    const gone = server.url('/missing.xml');
    assert.deepEqual((await de('feed', 'add', '--account', id, gone)).err, [
      `tidings: ${gone} ließ sich nicht lesen: Die Website hat mit Status 404 geantwortet.`,
    ]);
    const ja = cliOn(() => ctx.url(), { TIDINGS_LANGUAGE: 'ja' });
    const missing = await ja('digest', 'show', '999999999');
    assert.deepEqual(missing.err, ['tidings: ダイジェスト999999999はありません']);
    // And English as it always was, whatever ran before in this process.
    const en = cliOn(() => ctx.url());
    assert.deepEqual((await en('digest', 'show', '999999999')).err, ['tidings: no digest 999999999']);
  });
});
