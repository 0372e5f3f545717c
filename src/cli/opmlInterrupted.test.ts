/**
 * `tidings opml import` killed with SIGKILL in the middle of a large file (issue 25, F7): what was
 * committed stays, the import is recorded as running with how far it went, the Feeds page and the next
 * import say it was cut short, and importing the same file again finishes it. A real process, both engines.
 * Also the outlines without a feed address (xmlUrl), counted in the report (issue 25, the newcomer's list).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { type Store, openStore } from '../store/db.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { DIST_MAIN, assertBuilt, childEnv, createAccountViaCli, runCli } from '../test/process.js';
import { WebClient, webServer } from '../test/webClient.js';

assertBuilt();
const pgSkip = await postgresSkipReason();
const FEEDS = 20_000;

/** FEEDS feeds, and two outlines that are neither a feed nor a folder of any. */
function opmlFile(): string {
  const outlines = Array.from(
    { length: FEEDS },
    (_, i) => `<outline text="Feed ${i}" xmlUrl="https://f${i}.cut.example/feed"/>`,
  );
  return `<?xml version="1.0"?><opml version="2.0"><body>
    <outline text="A bookmark, not a feed" htmlUrl="https://site.example/"/>
    <outline text="Folder">${outlines.join('\n')}<outline text="No address" type="rss"/></outline>
  </body></opml>`;
}

for (const engine of ENGINES) {
  describe(
    `an OPML import cut short [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let database: TestDatabase | undefined;
      let store: Store | undefined;
      let dir: string | undefined;
      after(async () => {
        await store?.close();
        await database?.drop();
        if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      });

      test('is seen as such, keeps what it committed, and the same file again finishes it', async () => {
        database = await createTestDatabase(engine);
        dir = await mkdtemp(join(tmpdir(), 'tidings-opml-cut-'));
        const file = join(dir, 'feeds.opml');
        await writeFile(file, opmlFile());
        const vars = {
          DATABASE_URL: database.url,
          LOG_LEVEL: 'silent',
          TIDINGS_MAX_OPML_OUTLINES: String(FEEDS),
          TIDINGS_MAX_SUBSCRIPTIONS: String(FEEDS),
        };
        const { id, apiKey } = await createAccountViaCli(database.url, `importer ${engine}`);
        store = openStore(database.url);
        const db = store.db;
        const progress = () =>
          db
            .selectFrom('opml_imports')
            .select(['state', 'listed', 'done'])
            .where('account_id', '=', id)
            .executeTakeFirst();
        const followed = async () =>
          Number(
            (
              await db
                .selectFrom('subscriptions')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('account_id', '=', id)
                .executeTakeFirstOrThrow()
            ).n,
          );

        const child = spawn(process.execPath, [DIST_MAIN, 'opml', 'import', '--account', String(id), file], {
          env: childEnv(vars),
          stdio: 'ignore',
        });
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          child.once('exit', (_c, s) => resolve(s)),
        );
        // Killed once some batches are committed and before the last.
        for (let waited = 0; ; waited += 5) {
          const row = await progress();
          if (row !== undefined && row.done > 0) break;
          assert.ok(waited < 60_000, 'the import started within a minute');
          assert.equal(child.exitCode, null, 'the import is still running');
          await sleep(5);
        }
        child.kill('SIGKILL');
        assert.equal(await exited, 'SIGKILL');

        const cut = await progress();
        assert.ok(cut !== undefined);
        assert.equal(cut.state, 'running');
        assert.equal(cut.listed, FEEDS);
        assert.ok(cut.done > 0 && cut.done < FEEDS, `${cut.done} of ${FEEDS} done when killed`);
        assert.equal(await followed(), cut.done, 'each committed batch is counted with its subscriptions');

        // An import still 'running' with nothing moving for a minute is one cut short: let that minute pass.
        const earlier = new Date(Date.now() - 2 * 60_000).toISOString();
        await db
          .updateTable('opml_imports')
          .set({ updated_at: earlier })
          .where('account_id', '=', id)
          .execute();
        const app = webServer(store);
        await app.ready();
        try {
          const client = new WebClient(app);
          await client.signIn(apiKey);
          const page = await client.get('/feeds');
          const words = `Import cut short: ${cut.done.toLocaleString('en')} of 20,000 feeds of the file were handled. Import the same file again to finish`;
          assert.ok(page.body.includes(words), 'the Feeds page says so');

          const again = await runCli(
            ['opml', 'import', '--account', String(id), file, '--json'],
            vars,
            120_000,
          );
          assert.equal(again.code, 0, again.stderr);
          const report = JSON.parse(again.stdout) as Record<string, unknown>;
          assert.deepEqual(report, {
            added: FEEDS - cut.done,
            known: cut.done,
            refused: [],
            withoutUrl: 2,
            resumed: { done: cut.done, listed: FEEDS },
          });
          assert.equal(await followed(), FEEDS);
          assert.deepEqual(await progress(), { state: 'finished', listed: FEEDS, done: FEEDS });
          assert.ok(
            !(await client.get('/feeds')).body.includes('Import cut short'),
            'and no more once finished',
          );

          const text = await runCli(['opml', 'import', '--account', String(id), file], vars, 120_000);
          assert.equal(text.code, 0, text.stderr);
          assert.equal(
            text.stdout.trim(),
            `Imported 0 feeds (${FEEDS} already followed, 0 refused, 2 outlines without a feed address (xmlUrl) skipped); they are fetched on the next poll.`,
          );
        } finally {
          await app.close();
        }
      });
    },
  );
}
