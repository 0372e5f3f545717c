import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { operatorSetPassword } from '../accounts/passwords.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

/** Bytes read from a piped standard input at most (a password is at most 1,024; the service says so). */
const PIPED_MAX_BYTES = 8 * 1024;

/**
 * `tidings account password --account ID [--clear]`: sets an account's password for signing in on the web
 * (or removes it). The password is never an argument (it would show in `ps` and the shell's history): on a
 * terminal it is asked twice without echo; otherwise the first line of standard input is read, so a
 * script can pipe it. Browsers signed in with the old password are signed out.
 */
export function passwordCommand(account: Command, io: Io): void {
  const help = localeOf(null);
  account
    .command('password')
    .description(help.t('cli.help.account.password.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--clear', help.t('cli.help.account.password.clear'))
    .action(async (opts: { account: string; clear?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      const clear = opts.clear === true;
      await withStore(io, async (store) => {
        const id = await operatorAccount(store, accountId);
        const password = clear ? null : await readNewPassword(io);
        await operatorSetPassword(store, id, password, new Date());
        const values = { id: String(accountId), clear: clear ? 'yes' : 'no' };
        io.out(localeOf(null).t('cli.password.done', values));
      });
    });
}

async function readNewPassword(io: Io): Promise<string> {
  const stdin = process.stdin;
  const locale = localeOf(null);
  if (!stdin.isTTY) {
    const line = await firstLine(stdin);
    if (line === null || line === '') throw new UsageError(locale.t('cli.password.noInput'), 2);
    return line;
  }
  const first = await askHidden(io, locale.t('cli.password.ask'));
  const second = await askHidden(io, locale.t('cli.password.again'));
  if (first !== second) throw new UsageError(locale.t('cli.password.mismatch'), 2);
  return first;
}

/** The first line of a piped input (without its line ending), or null when it is empty. */
function firstLine(input: NodeJS.ReadStream): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const lines = createInterface({ input, crlfDelay: Infinity });
    let answered = false;
    const answer = (value: string | null): void => {
      if (answered) return;
      answered = true;
      lines.close();
      input.destroy();
      resolve(value);
    };
    input.on('data', (chunk: Buffer | string) => {
      bytes += chunk.length;
      if (bytes > PIPED_MAX_BYTES && !answered) {
        answered = true;
        lines.close();
        input.destroy();
        const tooLong = localeOf(null).t('cli.password.tooLong', { max: PIPED_MAX_BYTES });
        reject(new UsageError(tooLong, 2));
      }
    });
    lines.once('line', (line) => answer(line));
    lines.once('close', () => answer(null));
    input.once('error', reject);
  });
}

/** Asks on the terminal without echoing what is typed (raw mode; Backspace works, Ctrl-C cancels). */
function askHidden(io: Io, question: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    io.err(question);
    let value = '';
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new UsageError(localeOf(null).t('cli.password.cancelled'), 130));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
