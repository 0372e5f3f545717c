import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { type BuildOutcome, buildDigestNow } from '../digest/build.js';
import { type DeliveryOutcome, deliverDueDigests } from '../digest/deliver.js';
import { digestDeps } from '../digest/deps.js';
import { fitEmail } from '../digest/render/fit.js';
import { withMediaLinks } from '../digest/media.js';
import { MediaSigner } from '../fetch/mediaKey.js';
import { renderText } from '../digest/render/text.js';
import { runDigestPass } from '../digest/worker.js';
import { localeOf } from '../i18n/locale.js';
import { createLogger } from '../logger.js';
import { operatorAccount } from '../accounts/authorize.js';
import { anyDigestAsEpub, anyDigestToRead, digestHistory } from '../accounts/digests.js';
import { epubImageSource } from '../digest/epub/images.js';
import { accountOf, nextDigestOf } from '../accounts/profile.js';
import { listAccounts } from '../accounts/service.js';
import type { Store } from '../store/db.js';
import type { Digest } from '../store/digests.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

export function digestCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const digest = program.command('digest').description(help.t('cli.help.digest.about'));
  runCommand(digest, io);
  listCommand(digest, io);
  showCommand(digest, io);
  epubCommand(digest, io);
}

function runCommand(digest: Command, io: Io): void {
  const help = localeOf(null);
  digest
    .command('run')
    .description(help.t('cli.help.digest.run.about'))
    .option('--account <id>', help.t('cli.help.digest.run.account'))
    .option('--force', help.t('cli.help.digest.run.force'))
    .option('--json', help.t('cli.help.digest.run.json'))
    .addHelpText(
      'after',
      help.t('cli.help.digest.run.after', { fields: '{"status":"exists", "digestId", "nextDigestAt"}' }),
    )
    .action(async (opts: { account?: string; force?: boolean; json?: boolean }) => {
      const accountId = opts.account === undefined ? undefined : parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        if (accountId !== undefined) await operatorAccount(store, accountId);
        const deps = digestDeps(config, store, createLogger(config.logLevel));
        const only = accountId === undefined ? {} : { accountId };
        try {
          let builds: Built[];
          let deliveries: DeliveryOutcome[];
          if (opts.force === true) {
            const ids = accountId === undefined ? (await listAccounts(store)).map((a) => a.id) : [accountId];
            builds = [];
            for (const id of ids) builds.push(await withNextDigest(store, await buildDigestNow(deps, id)));
            deliveries = await deliverDueDigests(deps, only);
          } else {
            ({ builds, deliveries } = await runDigestPass(deps, only));
          }
          for (const b of builds) io.out(opts.json === true ? buildLine(b) : describeBuild(b));
          for (const d of deliveries) io.out(opts.json === true ? JSON.stringify(d) : describeDelivery(d));
          const locale = localeOf(null);
          if (opts.json !== true && builds.length + deliveries.length === 0) {
            io.out(locale.t('cli.digest.nothingDue'));
          }
          const refused = opts.force === true ? builds.filter((b) => b.status === 'exists').length : 0;
          if (refused > 0) {
            const values = { flag: '--force', count: refused };
            throw new UsageError(locale.t('cli.digest.forceRefused', values), FORCE_REFUSED_EXIT);
          }
        } finally {
          deps.mailer?.close();
        }
      });
    });
}

/** `digest run --force`'s exit status when a day that has its digest got no second one. */
const FORCE_REFUSED_EXIT = 3;

/** A build as `digest run` prints it; a refused `--force` says when the next digest comes (ISO, or null). */
type Built =
  | BuildOutcome
  | (Extract<BuildOutcome, { status: 'exists' }> & { nextDigestAt: string | null; zone: string });

/** A build as `--json` prints it: the account's zone is for the words only. */
function buildLine(b: Built): string {
  return JSON.stringify(b, (key, value: unknown) => (key === 'zone' ? undefined : value));
}

/**
 * Digests are one per local day (digests.local_date is unique per account, and the archive, the schedule
 * and the email's Message-ID are keyed by it): a day that has its digest cannot have another. What a
 * forced build that found one answers: that digest and when the next one is built.
 */
async function withNextDigest(store: Store, b: BuildOutcome): Promise<Built> {
  if (b.status !== 'exists') return b;
  const account = await accountOf(store, await operatorAccount(store, b.accountId));
  const next = account === null ? null : await nextDigestOf(store, account);
  return { ...b, nextDigestAt: next?.at.toISOString() ?? null, zone: account?.timezone ?? 'UTC' };
}

function describeBuild(b: Built): string {
  const locale = localeOf(null);
  const account = String(b.accountId);
  switch (b.status) {
    case 'built': {
      const { items, remaining } = b;
      return locale.t('cli.digest.built', {
        account,
        digest: String(b.digestId),
        date: b.localDate,
        items,
        remaining,
      });
    }
    case 'empty':
      return locale.t('cli.digest.empty', { account, date: b.localDate });
    case 'exists': {
      const said = { account, date: b.localDate, digest: String(b.digestId) };
      if (!('zone' in b)) return locale.t('cli.digest.exists', said);
      const at = b.nextDigestAt === null ? null : DateTime.fromISO(b.nextDigestAt).setZone(b.zone);
      const next = at === null ? 'none' : `${at.toFormat('yyyy-MM-dd HH:mm')} ${b.zone}`;
      return locale.t('cli.digest.existsForced', { ...said, next });
    }
    case 'lease_lost':
    case 'no_account':
      return locale.t('cli.digest.notBuilt', { account, status: b.status });
    case 'error':
      return locale.t('cli.digest.buildFailed', { account, error: b.message });
  }
}

function describeDelivery(d: DeliveryOutcome): string {
  const what = { digest: String(d.digestId), account: String(d.accountId) };
  const error =
    d.status === 'retrying' || d.status === 'failed' ? d.error : d.status === 'error' ? d.message : '';
  const at = d.status === 'retrying' ? d.nextAttemptAt : '';
  return localeOf(null).t('cli.digest.delivery', { ...what, status: d.status, at, error });
}

function listCommand(digest: Command, io: Io): void {
  const help = localeOf(null);
  digest
    .command('list')
    .description(help.t('cli.help.digest.list.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--limit <n>', help.t('cli.help.digest.list.limit'), '30')
    .option('--json', help.t('cli.help.digest.list.json'))
    .action(async (opts: { account: string; limit: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      const limit = parseId(opts.limit, '--limit');
      await withStore(io, async (store) => {
        const digests = await digestHistory(store, await operatorAccount(store, accountId), limit);
        if (opts.json === true) {
          for (const d of digests) io.out(JSON.stringify(digestLine(d)));
          return;
        }
        const locale = localeOf(null);
        if (digests.length === 0) {
          io.out(locale.t('cli.digest.none', { account: String(accountId) }));
          return;
        }
        io.out(locale.t('cli.digest.list.header'));
        for (const d of digests) {
          io.out([d.id, d.local_date, d.item_count, d.remaining, deliveryText(d)].join('\t'));
        }
      });
    });
}

/** A digest as `digest list --json` prints it. */
function digestLine(d: Digest): Record<string, unknown> {
  return {
    id: d.id,
    date: d.local_date,
    items: d.item_count,
    remaining: d.remaining,
    delivery: d.delivery,
    attempts: d.attempts,
    nextAttemptAt: d.next_attempt_at,
    lastError: d.last_error,
    sentAt: d.sent_at,
    createdAt: d.created_at,
    // The copy to the e-reader address (null: none), tracked apart from the email.
    ereader: d.ereader_state,
    ereaderAttempts: d.ereader_attempts,
    ereaderError: d.ereader_error,
    ereaderSentAt: d.ereader_sent_at,
  };
}

/** The delivery state in words, with the error when there is one. */
function deliveryText(d: Digest): string {
  const state = d.delivery === 'pending' && d.attempts > 0 ? 'retrying' : d.delivery;
  const at = d.delivery === 'sent' ? (d.sent_at ?? '') : (d.next_attempt_at ?? '?');
  const values = { state, at, attempts: d.attempts, error: d.last_error ?? '' };
  const text = localeOf(null).t('cli.digest.deliveryState', values);
  // "sent" without a time, as it always was; an error left empty keeps its line as it was too.
  return d.delivery === 'sent' ? text.trim() : text;
}

function showCommand(digest: Command, io: Io): void {
  const help = localeOf(null);
  digest
    .command('show')
    .description(help.t('cli.help.digest.show.about'))
    .argument('<id>', help.t('cli.help.common.digestId'))
    .option('--format <format>', help.t('cli.help.digest.show.format'), 'text')
    .action(async (id: string, opts: { format: string }) => {
      const digestId = parseId(id, 'digest');
      if (opts.format !== 'text' && opts.format !== 'html') {
        const values = { flag: '--format', value: opts.format };
        throw new UsageError(localeOf(null).t('cli.digest.formatInvalid', values), 2);
      }
      await withStore(io, async (store, config) => {
        const loaded = await anyDigestToRead(store, digestId, config.baseUrl);
        if (loaded === null) throw noDigest(digestId);
        // As the email is sent: its pictures through the media proxy (unless it is off), cut to the
        // email's size as the email is (render/fit.ts): the same entries, the same closing line.
        const settings = { baseUrl: config.baseUrl, proxy: config.mediaProxy };
        const media = await new MediaSigner(store.db, () => settings).links();
        const { view, html } = fitEmail(withMediaLinks(loaded.view, media));
        io.out((opts.format === 'html' ? html : renderText(view)).trimEnd());
      });
    });
}

const noDigest = (id: number): UsageError =>
  new UsageError(localeOf(null).t('cli.digest.noDigest', { id: String(id) }));

function epubCommand(digest: Command, io: Io): void {
  const help = localeOf(null);
  digest
    .command('epub')
    .description(help.t('cli.help.digest.epub.about'))
    .argument('<id>', help.t('cli.help.common.digestId'))
    .action(async (id: string) => {
      const digestId = parseId(id, 'digest');
      const write = io.outBytes;
      if (write === undefined) throw new UsageError(localeOf(null).t('cli.digest.noBinary'));
      await withStore(io, async (store, config) => {
        const images = epubImageSource(() => ({ allowPrivate: config.allowPrivateNetworks }));
        const epub = await anyDigestAsEpub(store, digestId, config.baseUrl, images);
        if (epub === null) throw noDigest(digestId);
        write(epub.bytes);
        io.err(localeOf(null).t('cli.digest.epubWritten', { file: epub.fileName, bytes: epub.bytes.length }));
      });
    });
}
