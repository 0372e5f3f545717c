import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import {
  changeFetchOriginal,
  changeFilters,
  followFeed,
  listSubscriptions,
  queuedFacts,
  unsubscribe,
} from '../accounts/subscriptions.js';
import { type DigestShare, type DigestShareChange, setDigestShare } from '../accounts/digestShare.js';
import { accountOf } from '../accounts/profile.js';
import {
  DEFAULT_PER_DIGEST,
  MAX_PER_DIGEST,
  formatPerDigest,
  isPriority,
  mutedAt,
  parsePerDigestChoice,
} from '../lib/digestShare.js';
import { queuedSentence } from '../i18n/sharedSentences.js';
import { type Locale, localeOf } from '../i18n/locale.js';
import { withoutBidiControls } from '../lib/bidi.js';
import { feedDeps } from '../feeds/deps.js';
import { createLogger } from '../logger.js';
import { type Io, UsageError, noAccount, parseId, withStore } from './context.js';

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
          const locale = localeOf(null);
          const created = result.created ? 'yes' : 'no';
          const { url: feedUrl } = result.feed;
          const subscribed = { created, title, url: feedUrl, id: String(result.subscription.id) };
          io.out(locale.t('cli.feed.subscribed', subscribed));
          if (result.created || queued > 0) {
            const zone = (await accountOf(store, accountId))?.timezone ?? 'UTC';
            const facts = queuedFacts(result, { backfillHours: deps.backfillHours, zone, now: new Date() });
            io.out(locale.t('cli.feed.queued', { sentence: queuedSentence(locale, facts) }));
          }
          const error = result.feed.last_error;
          if (error !== null) io.out(locale.t('cli.feed.lastFetchFailed', { error }));
          for (const alt of result.alternatives) {
            io.out(locale.t('cli.feed.alternative', { title: alt.title, url: alt.url }));
          }
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
        if (list === null) throw noAccount(id);
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
        const locale = localeOf(null);
        if (subs.length === 0) {
          const command = `tidings feed add --account ${accountId} URL`;
          io.out(locale.t('cli.feed.none', { id: String(accountId), command }));
          return;
        }
        io.out(locale.t('cli.feed.list.header'));
        for (const s of subs) {
          const status =
            s.status === 'gone'
              ? locale.t('cli.feed.status.gone', { error: s.lastError ?? '' })
              : s.status === 'newsletter'
                ? locale.t('cli.feed.status.newsletter')
                : (s.lastError ?? locale.t('cli.feed.status.ok'));
          // Neither a gone feed nor a newsletter's sender (never fetched) has a next fetch.
          const next = s.status === 'active' ? s.nextFetchAt : '-';
          const original = yesNo(locale, s.fetchOriginal);
          const when = s.lastFetchedAt ?? locale.t('cli.key.never');
          // Added last, so that scripts reading the columns before them read the same: items its rules
          // would have queued and that could not be, with why the last one was not; then whether the last
          // document was not well-formed XML and was read leniently (feedparser's "bozo").
          const skipped =
            s.lastSkipReason === null
              ? s.skippedItems
              : locale.t('cli.feed.skipped', { count: s.skippedItems, reason: s.lastSkipReason });
          const lenient = yesNo(locale, s.readLeniently);
          // Then its share of each digest: "3 (default)", "all" or a number; its priority; a mute.
          const share = locale.t('cli.feed.share', {
            share: formatPerDigest(s.perDigest),
            isDefault: s.perDigestDefault ? 'yes' : 'no',
          });
          const priority = locale.t('cli.feed.priority', { priority: s.priority });
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
              ...[share, priority, muted],
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
        io.out(localeOf(null).t('cli.feed.removed', { id: String(id), account: String(accountId) }));
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
        const { include, exclude } = filters;
        io.out(
          localeOf(null).t('cli.feed.filters', {
            id: String(id),
            includeSet: include === null ? 'no' : 'yes',
            include: include ?? '',
            excludeSet: exclude === null ? 'no' : 'yes',
            exclude: exclude ?? '',
          }),
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
        const flags = '--per-digest, --priority, --unmute';
        throw new UsageError(
          localeOf(null).t('cli.feed.set.giveOne', { flags, last: '--fetch-original' }),
          2,
        );
      }
      await withStore(io, async (store) => {
        const accountId = await operatorAccount(store, account);
        const locale = localeOf(null);
        const sub = String(id);
        if (share !== null) {
          const set = await setDigestShare(store, accountId, id, share);
          if (share.perDigest !== undefined) io.out(shareWords(locale, sub, set));
          if (share.priority !== undefined) {
            io.out(locale.t('cli.feed.set.priority', { id: sub, priority: set.priority }));
          }
          if (share.mutedUntil !== undefined) io.out(locale.t('cli.feed.set.unmuted', { id: sub }));
        }
        if (on === undefined) return;
        await changeFetchOriginal(store, accountId, id, on);
        io.out(locale.t('cli.feed.set.original', { id: sub, on: on ? 'yes' : 'no' }));
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
      const values = { flag: '--per-digest', max: MAX_PER_DIGEST, value: opts.perDigest };
      throw new UsageError(localeOf(null).t('cli.feed.set.perDigestInvalid', values), 2);
    }
    change.perDigest = value;
  }
  if (opts.priority !== undefined) {
    if (!isPriority(opts.priority)) {
      const values = { flag: '--priority', value: opts.priority };
      throw new UsageError(localeOf(null).t('cli.feed.set.priorityInvalid', values), 2);
    }
    change.priority = opts.priority;
  }
  if (opts.unmute === true) change.mutedUntil = null;
  return Object.keys(change).length === 0 ? null : change;
}

/** "Subscription 4: each digest shows up to 5 of its entries." and the like. */
function shareWords(locale: Locale, id: string, share: DigestShare): string {
  const { perDigest } = share;
  return locale.t('cli.feed.set.share', {
    id,
    perDigest: perDigest === 'all' ? 'all' : perDigest === 0 ? 'none' : String(perDigest),
    isDefault: share.perDigestDefault ? 'yes' : 'no',
  });
}

const yesNo = (locale: Locale, value: boolean): string => locale.t(value ? 'cli.yes' : 'cli.no');

function onOff(value: string, flag: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(localeOf(null).t('cli.error.notTrueFalse', { flag, value }), 2);
}
