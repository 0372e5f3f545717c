import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { feedDeps } from '../feeds/deps.js';
import { OpmlError, generateOpml, parseOpml } from '../feeds/subscribe/opml.js';
import { importOpml } from '../feeds/subscribe/subscribe.js';
import { createLogger } from '../logger.js';
import { accountById } from '../store/accounts.js';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

export function opmlCommands(program: Command, io: Io): void {
  const opml = program.command('opml').description('import and export subscription lists (OPML)');

  opml
    .command('import')
    .description('subscribe an account to every feed in an OPML file (folders and titles kept)')
    .requiredOption('--account <id>', 'account ID')
    .argument('<file>', 'OPML file, as exported by another feed reader')
    .action(async (file: string, opts: { account: string }) => {
      const accountId = parseId(opts.account, '--account');
      let outlines;
      try {
        outlines = parseOpml(await readFile(file));
      } catch (err) {
        if (err instanceof OpmlError) throw new UsageError(`${file}: ${err.message}`);
        throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
      await withStore(io, async (store, config) => {
        if ((await accountById(store.db, accountId)) === null)
          throw new UsageError(`no account ${accountId}`);
        const deps = feedDeps(config, store, createLogger(config.logLevel));
        const { added, known, refused } = await importOpml(deps, accountId, outlines);
        io.out(
          `Imported ${added} feeds (${known} already followed, ${refused.length} refused); they are fetched on the next poll.`,
        );
        for (const f of refused) io.err(`refused ${f.url}: ${f.message}`);
      });
    });

  opml
    .command('export')
    .description("print an account's subscriptions as OPML 2.0")
    .requiredOption('--account <id>', 'account ID')
    .action(async (opts: { account: string }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const account = await accountById(store.db, accountId);
        if (account === null) throw new UsageError(`no account ${accountId}`);
        const subs = await subscriptionsByAccount(store.db, accountId);
        const feeds = subs.map((s) => ({ url: s.url, title: s.title, siteUrl: s.siteUrl, folder: s.folder }));
        io.out(generateOpml(feeds, { title: `Tidings subscriptions of ${account.name}` }).trimEnd());
      });
    });
}
