import { open } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { isTidingsError } from '../errors.js';
import type { ImportCounts } from '../imports/counts.js';
import { localeOf } from '../i18n/locale.js';
import { importCountsSentence } from '../i18n/sharedSentences.js';
import { importReadingList } from '../imports/importLinks.js';
import { IMPORT_FORMATS, type ImportFormat, checkFileSize } from '../imports/record.js';
import { type Io, cannotRead, fileRefused, parseId, withStore } from './context.js';

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
            if (isTidingsError(err, 'invalid_input')) throw fileRefused(file, err.message);
            throw err;
          }
          if (opts.json === true) {
            io.out(JSON.stringify(counts));
            return;
          }
          const locale = localeOf(null);
          io.out(importCountsSentence(locale, counts));
          for (const b of counts.badExamples)
            io.err(locale.t('cli.import.skipped', { where: b.where, why: b.why }));
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
    throw cannotRead(file, err);
  }
  try {
    const { size } = await handle.stat();
    checkFileSize(size);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
