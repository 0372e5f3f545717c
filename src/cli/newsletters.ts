import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { type Unsubscribed, unsubscribeSender } from '../accounts/newsletterSenders.js';
import { newsletterAddress, newsletterSenders } from '../accounts/newsletters.js';
import { createMailer } from '../digest/mail.js';
import { localeOf } from '../i18n/locale.js';
import { type Io, parseId, withStore } from './context.js';

/**
 * `tidings newsletters address --account ID [--rotate] [--json]`: the account's inbound address (made at
 * the first ask; --rotate replaces it, and mail to the old one is refused from then on). --json prints
 * {"address": "…"}.
 *
 * `tidings newsletters list --account ID [--json]`: the senders it gets newsletters from, the latest
 * first. --json prints one JSON array of {id, name, address, messages, lastAt, unsubscribe, muted}: `id`
 * is the sender's subscription (what `feed` commands and the Feeds page tune; null once removed),
 * `unsubscribe` one of one-click, mailto, link, none.
 *
 * `tidings newsletters unsubscribe --account ID SENDER_ID [--json]`: leaves the sender (SENDER_ID: the id
 * `list` prints) by a one-click POST, else a mailto message through TIDINGS_SMTP_URL, else hands over the
 * link to open; the sender is muted either way, and the command says which was done. --json prints
 * {"how", "target", "failed", "muted"}.
 */
export function newslettersCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  const newsletters = program.command('newsletters').description(help.t('cli.help.newsletters.about'));
  newsletters
    .command('address')
    .description(help.t('cli.help.newsletters.address.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--rotate', help.t('cli.help.newsletters.address.rotate'))
    .option('--json', help.t('cli.help.common.print', { fields: '{"address": "…"}' }))
    .action(async (opts: { account: string; rotate?: boolean; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const account = await operatorAccount(store, accountId);
        const address = await newsletterAddress(store, account, {
          domain: config.inbound.domain,
          rotate: opts.rotate === true,
        });
        if (opts.json === true) io.out(JSON.stringify({ address }));
        else if (opts.rotate === true) io.out(localeOf(null).t('cli.newsletters.rotated', { address }));
        else io.out(address);
      });
    });
  newsletters
    .command('list')
    .description(help.t('cli.help.newsletters.list.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .option('--json', help.t('cli.help.newsletters.list.json'))
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const account = await operatorAccount(store, accountId);
        const senders = await newsletterSenders(store, account);
        if (opts.json === true) {
          io.out(JSON.stringify(senders));
          return;
        }
        const locale = localeOf(null);
        if (senders.length === 0) {
          const command = '`tidings newsletters address`';
          io.out(locale.t('cli.newsletters.none', { command }));
          return;
        }
        for (const s of senders) {
          const { name, address, messages, lastAt } = s;
          io.out(
            `${s.id ?? '-'}\t${locale.t('cli.newsletters.sender', { name, address, messages, lastAt })}`,
          );
          const how = s.unsubscribe === 'one-click' ? 'oneClick' : s.unsubscribe;
          io.out(`\t${locale.t('cli.newsletters.unsubscribeBy', { how, muted: s.muted ? 'yes' : 'no' })}`);
        }
      });
    });
  newsletters
    .command('unsubscribe')
    .description(help.t('cli.help.newsletters.unsubscribe.about'))
    .requiredOption('--account <id>', help.t('cli.help.common.account'))
    .argument('<sender-id>', help.t('cli.help.newsletters.unsubscribe.senderId'))
    .option('--json', help.t('cli.help.common.print', { fields: '{"how", "target", "failed", "muted"}' }))
    .action(async (senderId: string, opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      const subscriptionId = parseId(senderId, 'SENDER_ID');
      await withStore(io, async (store, config) => {
        const account = await operatorAccount(store, accountId);
        const mailer = createMailer(config);
        try {
          const done = await unsubscribeSender(
            {
              store,
              now: () => new Date(),
              policy: { allowPrivate: config.allowPrivateNetworks },
              mailer,
              mailFrom: config.mailFrom,
            },
            account,
            subscriptionId,
          );
          if (opts.json === true) {
            const { how, target, failed } = done;
            io.out(JSON.stringify({ how, target, failed, muted: true }));
          } else for (const line of unsubscribedLines(done)) io.out(line);
        } finally {
          mailer?.close();
        }
      });
    });
}

/** What unsubscribing did, in sentences. */
function unsubscribedLines(d: Unsubscribed): string[] {
  const locale = localeOf(null);
  const done = locale.t('cli.newsletters.unsubscribed', {
    how: d.how === 'one-click' ? 'oneClick' : d.how,
    name: d.sender.name,
    address: d.sender.address,
    target: d.target ?? '',
    header: 'List-Unsubscribe',
  });
  return [
    ...d.failed.map((problem) => locale.t('cli.newsletters.note', { problem })),
    done,
    locale.t('cli.newsletters.muted'),
  ];
}
