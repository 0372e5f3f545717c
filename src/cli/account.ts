import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { operatorAccount } from '../accounts/authorize.js';
import { changeAccountSettings } from '../accounts/changeSettings.js';
import { createAccountWithKey, listAccounts, showAccount } from '../accounts/service.js';
import { parseSettings } from '../accounts/settings.js';
import { describeDays } from '../digest/days.js';
import { type Locale, localeOf } from '../i18n/locale.js';
import type { Account } from '../store/accounts.js';
import { type Io, UsageError, curlLines, orGone, parseId, withStore } from './context.js';
import { accountAdminCommands, accountJson } from './accountAdmin.js';
import { feedUrlCommand } from './feedUrl.js';
import { opdsUrlCommand } from './opdsUrl.js';
import { passwordCommand } from './password.js';

export function accountCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const account = program.command('account').description(help.t('cli.help.account.about'));

  account
    .command('create')
    .description(help.t('cli.help.account.create.about'))
    .requiredOption('--name <name>', help.t('cli.help.account.create.name'))
    .option('--email <addr>', help.t('cli.help.account.create.email'))
    .option('--timezone <zone>', help.t('cli.help.common.timezone'), 'UTC')
    .option('--admin', help.t('cli.help.account.create.admin'))
    .option('--json', help.t('cli.help.common.jsonLine', { fields: '{"id", "apiKey"}' }))
    .action(
      async (opts: { name: string; email?: string; timezone: string; admin?: boolean; json?: boolean }) => {
        await withStore(io, async (store, config) => {
          const { account, apiKey } = await createAccountWithKey(store, opts);
          if (opts.json === true) {
            io.out(JSON.stringify({ id: account.id, apiKey }));
            return;
          }
          // The operator's language (TIDINGS_LANGUAGE); --json stays as it is.
          const locale = localeOf(null);
          io.out(
            locale.t('cli.account.created', {
              id: String(account.id),
              name: account.name,
              admin: account.is_admin ? 'yes' : 'no',
            }),
          );
          io.out(locale.t('cli.key.shownOnce', { key: apiKey }));
          io.out(locale.t('cli.account.saveWith'));
          for (const line of curlLines(config.baseUrl, apiKey)) io.out(line);
        });
      },
    );

  account
    .command('list')
    .description(help.t('cli.help.account.list.about'))
    .option('--json', help.t('cli.help.account.list.json'))
    .action(async (opts: { json?: boolean }) => {
      await withStore(io, async (store) => {
        const accounts = await listAccounts(store);
        if (opts.json === true) {
          for (const a of accounts) io.out(accountJson(a));
          return;
        }
        const locale = localeOf(null);
        if (accounts.length === 0) {
          io.out(locale.t('cli.account.none', { command: 'tidings account create --name NAME' }));
          return;
        }
        io.out(locale.t('cli.account.list.header'));
        for (const a of accounts) {
          io.out(
            [
              a.id,
              a.name,
              a.email ?? '-',
              a.timezone,
              a.created_at,
              a.digest_time,
              describeDays(a.digest_days),
              a.digest_max_items,
              emailed(locale, a),
              localTime(a.digest_due_at, a.timezone),
              yesNo(locale, a.is_admin),
              a.disabled_at ?? '-',
            ].join('\t'),
          );
        }
      });
    });

  account
    .command('show')
    .description(help.t('cli.help.account.show.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.account.show.json'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const id = await operatorAccount(store, accountId);
        printAccount(io, orGone(await showAccount(store, id), id), opts.json === true);
      });
    });

  account
    .command('set')
    .description(help.t('cli.help.account.set.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--timezone <zone>', help.t('cli.help.common.timezone'))
    .option('--time <HH:MM>', help.t('cli.help.account.set.time'))
    .option('--days <days>', help.t('cli.help.account.set.days'))
    .option('--max-items <n>', help.t('cli.help.account.set.maxItems'))
    .option('--email <addr>', help.t('cli.help.account.set.email'))
    .option('--email-enabled <bool>', help.t('cli.help.account.set.emailEnabled'))
    .option('--ereader-email <addr>', help.t('cli.help.account.set.ereaderEmail'))
    .option('--resurface <n>', help.t('cli.help.account.set.resurface'))
    .option('--resurface-order <order>', help.t('cli.help.account.set.resurfaceOrder'))
    .option('--skip-empty <bool>', help.t('cli.help.account.set.skipEmpty'))
    .option('--images <bool>', help.t('cli.help.account.set.images'))
    .option('--clean-links <bool>', help.t('cli.help.account.set.cleanLinks'))
    .option('--language <code>', help.t('cli.help.account.set.language'))
    .option('--json', help.t('cli.help.common.jsonAccount'))
    .action(async (opts: SetOptions) => {
      const accountId = parseId(opts.account, '--account');
      const given = {
        timezone: opts.timezone,
        time: opts.time,
        days: opts.days,
        maxItems: opts.maxItems,
        email: opts.email,
        emailEnabled: opts.emailEnabled,
        ereaderEmail: opts.ereaderEmail,
        resurface: opts.resurface,
        resurfaceOrder: opts.resurfaceOrder,
        skipEmpty: opts.skipEmpty,
        images: opts.images,
        cleanLinks: opts.cleanLinks,
        language: opts.language,
      };
      const present = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
      if (Object.keys(present).length === 0) {
        const flags =
          '--timezone, --time, --days, --max-items, --email, --email-enabled, --ereader-email, --resurface, --resurface-order, --skip-empty, --images, --clean-links';
        throw new UsageError(
          localeOf(null).t('cli.account.nothingToChange', { flags, last: '--language' }),
          2,
        );
      }
      const change = parseSettings(present);
      await withStore(io, async (store) => {
        const id = await operatorAccount(store, accountId);
        printAccount(io, orGone(await changeAccountSettings(store, id, change), id), opts.json === true);
      });
    });

  accountAdminCommands(account, io);
  feedUrlCommand(account, io);
  opdsUrlCommand(account, io);
  passwordCommand(account, io);
}

interface SetOptions {
  account: string;
  timezone?: string;
  time?: string;
  days?: string;
  maxItems?: string;
  email?: string;
  emailEnabled?: string;
  ereaderEmail?: string;
  resurface?: string;
  resurfaceOrder?: string;
  skipEmpty?: string;
  images?: string;
  cleanLinks?: string;
  language?: string;
  json?: boolean;
}

/** "3 a digest, oldest saved first", "5 a digest, in random order", "off". */
function resurfaceWords(locale: Locale, a: Account): string {
  if (a.resurface_count === 0) return locale.t('cli.account.resurface.off');
  return locale.t('cli.account.resurface.on', { count: a.resurface_count, order: a.resurface_order });
}

const yesNo = (locale: Locale, value: boolean): string => locale.t(value ? 'cli.yes' : 'cli.no');

function emailed(locale: Locale, a: Account): string {
  if (a.email === null) return locale.t('cli.account.emailed.noAddress');
  return a.email_enabled ? locale.t('cli.yes') : locale.t('cli.account.emailed.turnedOff');
}

/** An instant in the reader's zone: "2026-11-24 07:00 Europe/Berlin"; "-" when there is none. */
function localTime(iso: string | null, zone: string): string {
  if (iso === null) return '-';
  const t = DateTime.fromISO(iso, { zone: 'UTC' }).setZone(zone);
  return t.isValid ? `${t.toFormat('yyyy-MM-dd HH:mm')} ${zone}` : iso;
}

function printAccount(io: Io, a: Account, json: boolean): void {
  if (json) {
    io.out(accountJson(a));
    return;
  }
  const locale = localeOf(null);
  io.out(locale.t('cli.account.show.title', { id: String(a.id), name: a.name }));
  const rows: [string, string][] = [
    [locale.t('cli.account.show.timezone'), a.timezone],
    [locale.t('cli.account.show.sendTime'), a.digest_time],
    [locale.t('cli.account.show.days'), describeDays(a.digest_days)],
    [locale.t('cli.account.show.maxItems'), String(a.digest_max_items)],
    [locale.t('cli.account.show.skipEmpty'), yesNo(locale, a.digest_skip_empty)],
    [locale.t('cli.account.show.email'), a.email ?? '-'],
    [locale.t('cli.account.show.emailEnabled'), yesNo(locale, a.email_enabled)],
    [locale.t('cli.account.show.emailed'), emailed(locale, a)],
    [locale.t('cli.account.show.ereader'), a.ereader_email ?? '-'],
    [locale.t('cli.account.show.resurface'), resurfaceWords(locale, a)],
    [locale.t('cli.account.show.images'), yesNo(locale, a.show_images)],
    [locale.t('cli.account.show.cleanLinks'), yesNo(locale, a.clean_links)],
    [locale.t('cli.account.show.language'), a.language ?? locale.t('cli.account.show.languageDefault')],
    [locale.t('cli.account.show.admin'), yesNo(locale, a.is_admin)],
    [locale.t('cli.account.show.disabled'), a.disabled_at ?? locale.t('cli.no')],
    [
      locale.t('cli.account.show.nextDigest'),
      a.digest_due_at === null
        ? locale.t('cli.account.show.notScheduled')
        : `${localTime(a.digest_due_at, a.timezone)} (${a.digest_due_at})`,
    ],
    [locale.t('cli.account.show.lastDigest'), a.last_digest_date ?? '-'],
  ];
  // English's column as it always was (14); a language with longer labels gets a wider one.
  const width = Math.max(14, ...rows.map(([k]) => k.length + 1));
  for (const [k, v] of rows) io.out(`  ${k.padEnd(width)}${v}`);
}
