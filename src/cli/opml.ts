import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import {
  exportSubscriptions,
  importSubscriptions,
  interruptedImport,
  readSubscriptionList,
} from '../accounts/opml.js';
import { isTidingsError } from '../errors.js';
import { type RefreshDeps, feedDeps } from '../feeds/deps.js';
import type { OpmlList } from '../feeds/subscribe/opml.js';
import { interruptedSentence } from '../i18n/sharedSentences.js';
import { localeOf } from '../i18n/locale.js';
import { createLogger } from '../logger.js';
import { type Io, cannotRead, fileRefused, noAccount, parseId, withStore } from './context.js';

export function opmlCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const opml = program.command('opml').description(help.t('cli.help.opml.about'));

  opml
    .command('import')
    .description(help.t('cli.help.opml.import.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<file>', help.t('cli.help.opml.import.file'))
    .option(
      '--json',
      help.t('cli.help.common.jsonLine', {
        fields: '{"added", "known", "refused", "withoutUrl", "resumed"}',
      }),
    )
    .action(async (file: string, opts: { account: string; json?: boolean }) => {
      const id = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const accountId = await operatorAccount(store, id);
        const deps = feedDeps(config, store, createLogger(config.logLevel));
        // More feeds than one import or one account may have: limit_reached, exit 1, the limit named.
        const list = await readOpmlFile(deps, file);
        // An import cut short before: this one finishes it (what is followed already is skipped).
        const before = await interruptedImport(store, accountId);
        const locale = localeOf(null);
        if (before !== null && opts.json !== true) {
          io.out(locale.t('cli.opml.finishing', { interrupted: interruptedSentence(locale, before) }));
        }
        const { added, known, refused, withoutUrl } = await importSubscriptions(deps, accountId, list);
        if (opts.json === true) {
          const resumed = before === null ? null : { done: before.done, listed: before.listed };
          io.out(JSON.stringify({ added, known, refused, withoutUrl, resumed }));
          return;
        }
        const counts = { added, known, refused: refused.length, withoutUrl };
        io.out(locale.t('cli.opml.imported', counts));
        for (const f of refused) io.err(locale.t('cli.opml.refused', { url: f.url, reason: f.message }));
      });
    });

  opml
    .command('export')
    .description(help.t('cli.help.opml.export.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .action(async (opts: { account: string }) => {
      const id = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const document = await exportSubscriptions(store, await operatorAccount(store, id));
        if (document === null) throw noAccount(id);
        io.out(document.trimEnd());
      });
    });
}

/** The file the operator named, read as OPML; a file that cannot be read or is not OPML fails (1), named. */
async function readOpmlFile(deps: RefreshDeps, file: string): Promise<OpmlList> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw cannotRead(file, err);
  }
  try {
    return await readSubscriptionList(deps, bytes);
  } catch (err) {
    if (isTidingsError(err, 'invalid_input')) throw fileRefused(file, err.message);
    throw err;
  }
}
