import type { Command } from 'commander';
import { operatorAccount } from '../accounts/authorize.js';
import { newsletterAddress, newsletterSenders } from '../accounts/newsletters.js';
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
 */
export function newslettersCommands(program: Command, io: Io): void {
  const newsletters = program.command('newsletters').description('newsletters sent to an account by e-mail');
  newsletters
    .command('address')
    .description("print the account's inbound address, made at the first ask")
    .requiredOption('--account <id>', 'account ID')
    .option('--rotate', 'replace it with a new one: mail to the old one is refused from then on')
    .option('--json', 'print {"address": "…"}')
    .action(async (opts: { account: string; rotate?: boolean; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store, config) => {
        const account = await operatorAccount(store, accountId);
        const address = await newsletterAddress(store, account, {
          domain: config.inbound.domain,
          rotate: opts.rotate === true,
        });
        if (opts.json === true) io.out(JSON.stringify({ address }));
        else if (opts.rotate === true) io.out(`New address: ${address} (mail to the old one is refused).`);
        else io.out(address);
      });
    });
  newsletters
    .command('list')
    .description('list the senders an account gets newsletters from, the latest first')
    .requiredOption('--account <id>', 'account ID')
    .option('--json', 'print one JSON array')
    .action(async (opts: { account: string; json?: boolean }) => {
      const accountId = parseId(opts.account, '--account');
      await withStore(io, async (store) => {
        const account = await operatorAccount(store, accountId);
        const senders = await newsletterSenders(store, account);
        if (opts.json === true) {
          io.out(JSON.stringify(senders));
          return;
        }
        if (senders.length === 0) {
          io.out('No newsletters yet: send them to the address `tidings newsletters address` prints.');
          return;
        }
        for (const s of senders) {
          const muted = s.muted ? ', muted' : '';
          io.out(`${s.id ?? '-'}\t${s.name} <${s.address}>\t${s.messages} messages, last ${s.lastAt}`);
          io.out(`\tunsubscribe: ${s.unsubscribe}${muted}`);
        }
      });
    });
}
