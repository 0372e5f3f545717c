import type { Command } from 'commander';
import { feedDeps } from '../feeds/deps.js';
import { SubscribeError, checkFilters, subscribe } from '../feeds/subscribe/subscribe.js';
import { createLogger } from '../logger.js';
import { accountById } from '../store/accounts.js';
import { deleteOrphanFeeds } from '../store/feeds.js';
import {
  deleteSubscription,
  subscriptionById,
  subscriptionsByAccount,
  updateSubscriptionFilters,
} from '../store/subscriptions.js';
import type { Store } from '../store/db.js';
import { type Io, UsageError, parseId, withStore } from './context.js';

async function requireAccount(store: Store, accountId: number): Promise<void> {
  if ((await accountById(store.db, accountId)) === null) throw new UsageError(`no account ${accountId}`);
}

export function addCommand(feed: Command, io: Io): void {
  feed
    .command('add')
    .description('subscribe an account to a feed, given the feed or a web page that links to it')
    .requiredOption('--account <id>', 'account ID')
    .argument('<url>', 'feed URL or web page URL')
    .option('--title <title>', 'your own name for the feed')
    .option(
      '--include <terms>',
      'queue only items matching one of these words, phrases or /regexes/ (comma-separated)',
    )
    .option('--exclude <terms>', 'never queue items matching one of these')
    .option('--json', 'print exactly one JSON line {"id", "url", "title"}')
    .action(
      async (
        url: string,
        opts: { account: string; title?: string; include?: string; exclude?: string; json?: boolean },
      ) => {
        const accountId = parseId(opts.account, '--account');
        try {
          checkFilters(opts.include, opts.exclude); // a bad filter is a usage error (2), as with `feed filter`
        } catch (err) {
          throw err instanceof SubscribeError ? new UsageError(err.message, 2) : err;
        }
        await withStore(io, async (store, config) => {
          await requireAccount(store, accountId);
          const deps = feedDeps(config, store, createLogger(config.logLevel));
          const result = await subscribe(deps, accountId, { url, ...opts }).catch((err: unknown) => {
            throw err instanceof SubscribeError ? new UsageError(err.message) : err;
          });
          const title = result.subscription.title ?? result.feed.title;
          if (opts.json === true) {
            io.out(JSON.stringify({ id: result.subscription.id, url: result.feed.url, title }));
            return;
          }
          io.out(
            `${result.created ? 'Subscribed to' : 'Already subscribed to'} ${title} <${result.feed.url}> (id ${result.subscription.id}).`,
          );
          if (result.feed.last_error !== null) io.out(`Last fetch failed: ${result.feed.last_error}`);
          for (const alt of result.alternatives) io.out(`The page also offers: ${alt.title} <${alt.url}>`);
        });
      },
    );
}

export function listCommand(feed: Command, io: Io): void {
  feed
    .command('list')
    .description("list an account's feeds with their last fetch, last error, next fetch and item count")
    .requiredOption('--account <id>', 'account ID')
    .option('--json', 'one JSON line per feed')
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        await requireAccount(store, accountId);
        const subs = await subscriptionsByAccount(store.db, accountId);
        if (opts.json === true) {
          for (const s of subs) io.out(JSON.stringify(s));
          return;
        }
        if (subs.length === 0) {
          io.out(`Account ${accountId} follows no feeds yet: tidings feed add --account ${accountId} URL`);
          return;
        }
        io.out(['ID', 'TITLE', 'URL', 'LAST FETCH', 'NEXT FETCH', 'ITEMS', 'STATUS'].join('\t'));
        for (const s of subs) {
          const status = s.status === 'gone' ? `gone: ${s.lastError ?? ''}` : (s.lastError ?? 'ok');
          const next = s.status === 'gone' ? '-' : s.nextFetchAt;
          io.out([s.id, s.title, s.url, s.lastFetchedAt ?? 'never', next, s.itemCount, status].join('\t'));
        }
      });
    });
}

export function removeCommand(feed: Command, io: Io): void {
  feed
    .command('remove')
    .description('unsubscribe an account from a feed (what is already queued stays)')
    .requiredOption('--account <id>', 'account ID')
    .argument('<id>', 'subscription ID, from `tidings feed list`')
    .action(async (idArg: string, opts: { account: string }) => {
      const accountId = parseId(opts.account, '--account');
      const id = parseId(idArg, 'ID');
      await withStore(io, async (store) => {
        if (!(await deleteSubscription(store.db, accountId, id))) {
          throw new UsageError(`account ${accountId} has no feed subscription ${id}`);
        }
        await deleteOrphanFeeds(store.db);
        io.out(`Removed feed subscription ${id} of account ${accountId}.`);
      });
    });
}

export function filterCommand(feed: Command, io: Io): void {
  feed
    .command('filter')
    .description("set a subscription's include / exclude filters (an empty value clears one)")
    .requiredOption('--account <id>', 'account ID')
    .argument('<id>', 'subscription ID')
    .option('--include <terms>', 'queue only items matching one of these words, phrases or /regexes/')
    .option('--exclude <terms>', 'never queue items matching one of these')
    .action(async (idArg: string, opts: { account: string; include?: string; exclude?: string }) => {
      const accountId = parseId(opts.account, '--account');
      const id = parseId(idArg, 'ID');
      await withStore(io, async (store) => {
        const sub = await subscriptionById(store.db, accountId, id);
        if (sub === null) throw new UsageError(`account ${accountId} has no feed subscription ${id}`);
        let filters: { include: string | null; exclude: string | null };
        try {
          filters = checkFilters(opts.include ?? sub.include_filter, opts.exclude ?? sub.exclude_filter);
        } catch (err) {
          throw err instanceof SubscribeError ? new UsageError(err.message, 2) : err;
        }
        await updateSubscriptionFilters(store.db, accountId, id, filters);
        io.out(
          `Filters of subscription ${id}: include ${filters.include ?? '(all)'}; exclude ${filters.exclude ?? '(none)'}.`,
        );
      });
    });
}
