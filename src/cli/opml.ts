import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { exportSubscriptions, importSubscriptions, readSubscriptionList } from '../accounts/opml.js';
import { isTidingsError, TidingsError } from '../errors.js';
import { type RefreshDeps, feedDeps } from '../feeds/deps.js';
import type { OpmlOutline } from '../feeds/subscribe/opml.js';
import { createLogger } from '../logger.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

export function opmlCommands(program: Command, io: Io): void {
  const opml = program.command('opml').description('import and export subscription lists (OPML)');

  opml
    .command('import')
    .description('subscribe an account to every feed in an OPML file (folders and titles kept)')
    .requiredOption('--account <id>', 'account ID')
    .argument('<file>', 'OPML file, as exported by another feed reader')
    .action(async (file: string, opts: { account: string }) => {
      const id = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const accountId = await operatorAccount(store, id);
        const deps = feedDeps(config, store, createLogger(config.logLevel));
        // More feeds than one import or one account may have: limit_reached, exit 1, the limit named.
        const outlines = await readOpmlFile(deps, file);
        const { added, known, refused } = await importSubscriptions(deps, accountId, outlines);
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
      const id = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const document = await exportSubscriptions(store, await operatorAccount(store, id));
        if (document === null) throw new TidingsError('not_found', `no account ${id}`);
        io.out(document.trimEnd());
      });
    });
}

/** The file the operator named, read as OPML; a file that cannot be read or is not OPML fails (1), named. */
async function readOpmlFile(deps: RefreshDeps, file: string): Promise<OpmlOutline[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return await readSubscriptionList(deps, bytes);
  } catch (err) {
    if (isTidingsError(err, 'invalid_input')) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
}
