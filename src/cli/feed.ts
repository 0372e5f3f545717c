import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { feedParser } from '../feeds/parse/load.js';
import { type Feed, FeedParseError } from '../feeds/parse/model.js';
import { resolveHttpUrl } from '../feeds/parse/urls.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, UsageError } from './context.js';
import { addCommand, filterCommand, listCommand, removeCommand, setCommand } from './feedSubscriptions.js';

export function feedCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const feed = program.command('feed').description(help.t('cli.help.feed.about'));
  addCommand(feed, io);
  listCommand(feed, io);
  removeCommand(feed, io);
  filterCommand(feed, io);
  setCommand(feed, io);
  parseCommand(feed, io);
}

function parseCommand(feed: Command, io: Io): void {
  const help = localeOf(null);
  feed
    .command('parse')
    .description(help.t('cli.help.feed.parse.about'))
    .argument('<file...>', help.t('cli.help.feed.parse.file'))
    .option('--base-url <url>', help.t('cli.help.feed.parse.baseUrl'))
    .addHelpText(
      'after',
      help.t('cli.help.feed.parse.after', {
        fields:
          '{"format", "title", "siteUrl", "items": [{"id", "url", "title", "published", "updated", "summary", "author"}]}',
        fields2: '{"file", "error"}',
      }),
    )
    .action(async (files: string[], opts: { baseUrl?: string }) => {
      const url = opts.baseUrl === undefined ? undefined : checkBaseUrl(opts.baseUrl);
      let failures = 0;
      for (const file of files) {
        const line = await parseFileLine(file, url);
        if ('error' in line) failures++;
        io.out(JSON.stringify(line));
      }
      if (failures > 0) {
        throw new UsageError(localeOf(null).t('cli.feed.parseFailed', { failures, files: files.length }));
      }
    });
}

function checkBaseUrl(value: string): string {
  const url = resolveHttpUrl(value, null);
  if (url === null) {
    throw new UsageError(localeOf(null).t('cli.feed.baseUrlInvalid', { flag: '--base-url', value }), 2);
  }
  return url;
}

/** One line of `feed parse` output. */
type ParseLine = FeedLine | { file: string; error: string };

interface FeedLine {
  format: Feed['format'];
  title: string;
  siteUrl: string | null;
  items: {
    id: string;
    url: string | null;
    title: string;
    published: string | null;
    updated: string | null;
    summary: string;
    author: string | null;
  }[];
}

async function parseFileLine(file: string, url: string | undefined): Promise<ParseLine> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    return { file, error: `cannot read the file: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    return summarise((await feedParser()).parseFeed(bytes, url === undefined ? {} : { url }));
  } catch (err) {
    if (err instanceof FeedParseError) return { file, error: err.message };
    throw err;
  }
}

/** The fields worth seeing when checking what Tidings makes of a feed (content and enclosures left out). */
function summarise(feed: Feed): FeedLine {
  return {
    format: feed.format,
    title: feed.title,
    siteUrl: feed.siteUrl,
    items: feed.items.map((item) => ({
      id: item.id,
      url: item.url,
      title: item.title,
      published: item.published?.toISOString() ?? null,
      updated: item.updated?.toISOString() ?? null,
      summary: item.summary,
      author: item.author,
    })),
  };
}
