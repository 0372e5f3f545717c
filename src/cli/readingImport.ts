import { open } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { localeOf } from '../i18n/locale.js';
import { operatorAccount } from '../accounts/authorize.js';
import { isTidingsError } from '../errors.js';
import { type ImportCounts, countsWords } from '../imports/counts.js';
import { importReadingList } from '../imports/importLinks.js';
import { IMPORT_FORMATS, type ImportFormat, checkFileSize } from '../imports/record.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

/** `tidings import`: an export of Pocket, Instapaper, Omnivore, Wallabag or a browser into the reading list. */
export function importCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('import')
    .description(help.t('cli.help.import.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<file>', help.t('cli.help.import.file'))
    .addOption(
      new Option('--format <format>', help.t('cli.help.import.format'))
        .choices(['auto', ...IMPORT_FORMATS])
        .default('auto'),
    )
    .option(
      '--json',
      help.t('cli.help.import.json', {
        fields: '{format, rows, imported, merged, duplicates, bad, badExamples}',
      }),
    )
    .action(
      async (file: string, opts: { account: string; format: ImportFormat | 'auto'; json?: boolean }) => {
        const id = parseId(opts.account, '--account');
        const bytes = await readExport(file);
        await withStore(io, async (store) => {
          const accountId = await operatorAccount(store, id);
          let counts: ImportCounts;
          try {
            counts = await importReadingList(store, accountId, bytes, opts.format);
          } catch (err) {
            if (isTidingsError(err, 'invalid_input')) throw new UsageError(`${file}: ${err.message}`);
            throw err;
          }
          if (opts.json === true) {
            io.out(JSON.stringify(counts));
            return;
          }
          io.out(countsWords(counts));
          for (const b of counts.badExamples) io.err(`skipped ${b.where}: ${b.why}`);
        });
      },
    );
}

/** The file, refused past the size limit before it is read (exit 1, the limit named). */
async function readExport(file: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const { size } = await handle.stat();
    checkFileSize(size);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
