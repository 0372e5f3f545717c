import type { Command } from 'commander';
import { localeOf } from '../i18n/locale.js';
import { operatorAccount } from '../accounts/authorize.js';
import {
  changeFetchOriginal,
  changeFilters,
  followFeed,
  listSubscriptions,
  queuedWords,
  unsubscribe,
} from '../accounts/subscriptions.js';
import { type DigestShare, type DigestShareChange, setDigestShare } from '../accounts/digestShare.js';
import { accountOf } from '../accounts/profile.js';
import { TidingsError } from '../errors.js';
import {
  DEFAULT_PER_DIGEST,
  MAX_PER_DIGEST,
  formatPerDigest,
  isPriority,
  mutedAt,
  parsePerDigestChoice,
  perDigestWords,
} from '../lib/digestShare.js';
import { withoutBidiControls } from '../lib/bidi.js';
import { feedDeps } from '../feeds/deps.js';
import { createLogger } from '../logger.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

export function addCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('add')
    .description(help.t('cli.help.feed.add.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<url>', help.t('cli.help.feed.add.url'))
    .option('--title <title>', help.t('cli.help.feed.add.title'))
    .option('--include <terms>', help.t('cli.help.feed.add.include'))
    .option('--exclude <terms>', help.t('cli.help.common.exclude'))
    .option('--fetch-original', help.t('cli.help.feed.add.fetchOriginal'))
    .option(
      '--json',
      help.t('cli.help.feed.add.json', { fields: '{"id", "url", "title", "queued", "newestItemAt"}' }),
    )
    .action(
      async (
        url: string,
        opts: {
          account: string;
          title?: string;
          include?: string;
          exclude?: string;
          fetchOriginal?: boolean;
          json?: boolean;
        },
      ) => {
        const id = parseId(opts.account, '--account');
        await withStore(io, async (store, config) => {
          const accountId = await operatorAccount(store, id);
          const deps = feedDeps(config, store, createLogger(config.logLevel));
          const { title: name, include, exclude, fetchOriginal } = opts;
          const input = { url, title: name, include, exclude, fetchOriginal: fetchOriginal === true };
          const result = await followFeed(deps, accountId, input);
          const title = result.subscription.title ?? result.feed.title;
          const { queued, newestItemAt } = result;
          if (opts.json === true) {
            const line = { id: result.subscription.id, url: result.feed.url, title, queued, newestItemAt };
            io.out(JSON.stringify(line));
            return;
          }
          io.out(
            `${result.created ? 'Subscribed to' : 'Already subscribed to'} ${title} <${result.feed.url}> (id ${result.subscription.id}).`,
          );
          if (result.created || queued > 0) {
            const zone = (await accountOf(store, accountId))?.timezone ?? 'UTC';
            const words = queuedWords(result, { backfillHours: deps.backfillHours, zone, now: new Date() });
            io.out(`${words}.`);
          }
          if (result.feed.last_error !== null) io.out(`Last fetch failed: ${result.feed.last_error}`);
          for (const alt of result.alternatives) io.out(`The page also offers: ${alt.title} <${alt.url}>`);
        });
      },
    );
}

export function listCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('list')
    .description(help.t('cli.help.feed.list.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.feed.list.json'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const id = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const accountId = await operatorAccount(store, id);
        const list = await listSubscriptions(store, accountId);
        if (list === null) throw new TidingsError('not_found', `no account ${id}`);
        const subs = list.subscriptions;
        const now = new Date();
        if (opts.json === true) {
          // A mute that has ended is no mute: null, as after an unmute. Titles as text, as everywhere
          // they are shown: without bidi controls (lib/bidi.ts).
          for (const s of subs) {
            io.out(
              JSON.stringify({
                ...s,
                title: withoutBidiControls(s.title),
                mutedUntil: mutedAt(s.mutedUntil, now) ? s.mutedUntil : null,
              }),
            );
          }
          return;
        }
        if (subs.length === 0) {
          io.out(`Account ${accountId} follows no feeds yet: tidings feed add --account ${accountId} URL`);
          return;
        }
        const head = [
          'ID',
          'TITLE',
          'URL',
          'LAST FETCH',
          'NEXT FETCH',
          'ITEMS',
          'STATUS',
          'ORIGINAL',
          'SKIPPED',
          'LENIENT',
          'PER DIGEST',
          'PRIORITY',
          'MUTED UNTIL',
        ];
        io.out(head.join('\t'));
        for (const s of subs) {
          const status =
            s.status === 'gone'
              ? `gone: ${s.lastError ?? ''}`
              : s.status === 'newsletter'
                ? 'newsletter'
                : (s.lastError ?? 'ok');
          // Neither a gone feed nor a newsletter's sender (never fetched) has a next fetch.
          const next = s.status === 'active' ? s.nextFetchAt : '-';
          const original = s.fetchOriginal ? 'yes' : 'no';
          const when = s.lastFetchedAt ?? 'never';
          // Added last, so that scripts reading the columns before them read the same: items its rules
          // would have queued and that could not be, with why the last one was not; then whether the last
          // document was not well-formed XML and was read leniently (feedparser's "bozo").
          const skipped =
            s.lastSkipReason === null ? s.skippedItems : `${s.skippedItems} (last: ${s.lastSkipReason})`;
          const lenient = s.readLeniently ? 'yes' : 'no';
          // Then its share of each digest: "3 (default)", "all" or a number; its priority; a mute.
          const share = `${formatPerDigest(s.perDigest)}${s.perDigestDefault ? ' (default)' : ''}`;
          const muted = mutedAt(s.mutedUntil, now) ? (s.mutedUntil ?? '-') : '-';
          io.out(
            [
              ...[
                s.id,
                withoutBidiControls(s.title),
                s.url,
                when,
                next,
                s.itemCount,
                status,
                original,
                skipped,
                lenient,
              ],
              ...[share, s.priority, muted],
            ].join('\t'),
          );
        }
      });
    });
}

export function removeCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('remove')
    .description(help.t('cli.help.feed.remove.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<id>', help.t('cli.help.common.subscriptionId'))
    .action(async (idArg: string, opts: { account: string }) => {
      const account = parseId(opts.account, '--account');
      const id = parseId(idArg, 'ID');
      await withStore(io, async (store) => {
        const accountId = await operatorAccount(store, account);
        await unsubscribe(store, accountId, id);
        io.out(`Removed feed subscription ${id} of account ${accountId}.`);
      });
    });
}

export function filterCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('filter')
    .description(help.t('cli.help.feed.filter.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<id>', help.t('cli.help.feed.filter.id'))
    .option('--include <terms>', help.t('cli.help.feed.filter.include'))
    .option('--exclude <terms>', help.t('cli.help.common.exclude'))
    .action(async (idArg: string, opts: { account: string; include?: string; exclude?: string }) => {
      const account = parseId(opts.account, '--account');
      const id = parseId(idArg, 'ID');
      await withStore(io, async (store) => {
        const accountId = await operatorAccount(store, account);
        const filters = await changeFilters(store, accountId, id, {
          include: opts.include,
          exclude: opts.exclude,
        });
        io.out(
          `Filters of subscription ${id}: include ${filters.include ?? '(all)'}; exclude ${filters.exclude ?? '(none)'}.`,
        );
      });
    });
}

export function setCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('set')
    .description(help.t('cli.help.feed.set.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<id>', help.t('cli.help.common.subscriptionId'))
    .option(
      '--per-digest <n>',
      help.t('cli.help.feed.set.perDigest', {
        max: String(MAX_PER_DIGEST),
        default: String(DEFAULT_PER_DIGEST),
      }),
    )
    .option('--priority <priority>', help.t('cli.help.feed.set.priority'))
    .option('--unmute', help.t('cli.help.feed.set.unmute'))
    .option('--fetch-original <on>', help.t('cli.help.feed.set.fetchOriginal'))
    .action(async (idArg: string, opts: SetOptions) => {
      const account = parseId(opts.account, '--account');
      const id = parseId(idArg, 'ID');
      const on = opts.fetchOriginal === undefined ? undefined : onOff(opts.fetchOriginal, '--fetch-original');
      const share = shareChange(opts);
      if (on === undefined && share === null) {
        throw new UsageError('give --per-digest, --priority, --unmute or --fetch-original', 2);
      }
      await withStore(io, async (store) => {
        const accountId = await operatorAccount(store, account);
        if (share !== null) {
          const set = await setDigestShare(store, accountId, id, share);
          if (share.perDigest !== undefined) io.out(`Subscription ${id}: ${shareWords(set)}.`);
          if (share.priority !== undefined) io.out(`Subscription ${id}: priority ${set.priority}.`);
          if (share.mutedUntil !== undefined) io.out(`Subscription ${id}: not muted.`);
        }
        if (on === undefined) return;
        await changeFetchOriginal(store, accountId, id, on);
        io.out(
          on
            ? `Subscription ${id}: the pages of its items are read too.`
            : `Subscription ${id}: its items keep the feed's text only.`,
        );
      });
    });
}

interface SetOptions {
  account: string;
  perDigest?: string;
  priority?: string;
  unmute?: boolean;
  fetchOriginal?: string;
}

/** The share flags of `feed set`, checked; null when none was given. */
function shareChange(opts: SetOptions): DigestShareChange | null {
  const change: DigestShareChange = {};
  if (opts.perDigest !== undefined) {
    const value = parsePerDigestChoice(opts.perDigest);
    if (value === null) {
      throw new UsageError(
        `--per-digest must be all, default or a whole number from 0 to ${MAX_PER_DIGEST}, not "${opts.perDigest}"`,
        2,
      );
    }
    change.perDigest = value;
  }
  if (opts.priority !== undefined) {
    if (!isPriority(opts.priority)) {
      throw new UsageError(`--priority must be high, normal or low, not "${opts.priority}"`, 2);
    }
    change.priority = opts.priority;
  }
  if (opts.unmute === true) change.mutedUntil = null;
  return Object.keys(change).length === 0 ? null : change;
}

/** "each digest shows up to 5 of its entries" and the like. */
function shareWords(share: DigestShare): string {
  if (share.perDigest === 0) return 'each digest only counts its entries, on its "+N more" line';
  return `each digest shows ${perDigestWords(share.perDigest)}${share.perDigestDefault ? ' (the default)' : ''}`;
}

function onOff(value: string, flag: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${flag} must be true or false, not "${value}"`, 2);
}
