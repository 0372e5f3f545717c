import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { SEARCH_PAGE_SIZE, type SearchHit, type Segment, searchAccount } from '../accounts/search.js';
import { localeOf } from '../i18n/locale.js';
import { segmentText } from '../lib/highlight.js';
import { type Io, parseId, withStore } from './context.js';

/**
 * `tidings search --account ID QUERY [--json]`: the account's queue and digests, best first (see
 * docs/operating.md "Search"). Human output: a header, then per hit a line of where it is and its title
 * (matches in **double asterisks**), its link, its snippet. --json: one line per hit (searchLine).
 */
export function searchCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('search')
    .description(help.t('cli.help.search.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--limit <n>', help.t('cli.help.search.limit'), String(SEARCH_PAGE_SIZE))
    .option('--offset <n>', help.t('cli.help.search.offset'), '0')
    .option('--json', help.t('cli.help.search.json'))
    .argument('<query...>', help.t('cli.help.search.query'))
    .action(
      async (query: string[], opts: { account: string; limit: string; offset: string; json?: boolean }) => {
        const accountId = parseId(opts.account, '--account');
        const limit = parseId(opts.limit, '--limit');
        const offset = parseId(opts.offset, '--offset');
        await withStore(io, async (store) => {
          const account = await operatorAccount(store, accountId);
          const text = query.join(' ');
          const found = await searchAccount(store, account, text, { limit, offset });
          if (opts.json === true) {
            for (const hit of found.hits) io.out(JSON.stringify(searchLine(hit)));
            return;
          }
          const locale = localeOf(null);
          if (found.hits.length === 0) {
            io.out(
              found.total === 0
                ? locale.t('cli.search.nothing', { query: text })
                : locale.t('cli.search.noMore', { total: found.total }),
            );
            return;
          }
          const { total, offset: skipped } = found;
          const shown = { first: skipped + 1, last: skipped + found.hits.length };
          const capped = found.capped ? 'yes' : 'no';
          io.out(locale.t('cli.search.header', { capped, more: total - 1, count: total, ...shown }));
          for (const hit of found.hits) {
            const where = locale.t('cli.search.where', { kind: hit.kind, date: hit.digestDate ?? '?' });
            io.out('');
            io.out(`${where}  ${terminal(hit.title)} (${hit.site})`);
            io.out(`  ${hit.url}`);
            if (hit.snippet.length > 0) io.out(`  ${terminal(hit.snippet)}`);
          }
        });
      },
    );
}

/**
 * A hit as `search --json` prints it: kind ("queue" | "digest"), itemId, digestId and digestDate (null
 * when queued), at (when queued or digested), url, site, title and snippet as plain text, and
 * titleSegments / snippetSegments ([{text, mark}]: mark true on what matched).
 */
export function searchLine(hit: SearchHit): Record<string, unknown> {
  return {
    kind: hit.kind,
    itemId: hit.itemId,
    digestId: hit.digestId,
    digestDate: hit.digestDate,
    at: hit.at,
    url: hit.url,
    site: hit.site,
    title: segmentText(hit.title),
    snippet: segmentText(hit.snippet),
    titleSegments: hit.title,
    snippetSegments: hit.snippet,
  };
}

const terminal = (segments: readonly Segment[]) =>
  segments.map((s) => (s.mark ? `**${s.text}**` : s.text)).join('');
