import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type Worker, workerId } from '../lib/workers.js';
import type { NewsletterDeps } from '../newsletters/ingest.js';
import type { Store } from '../store/db.js';

/**
 * Newsletters' SMTP and IMAP ways in, as `serve` and `worker` run them (docs/newsletters.md): the SMTP
 * listener in every such process where TIDINGS_INBOUND_SMTP_PORT is set (a listener, like the HTTP one:
 * TIDINGS_WORKER=false does not turn it off), the IMAP watcher with the background workers where
 * TIDINGS_INBOUND_IMAP_URL is set (one process of the instance watches: newsletters/imap.ts). Each is
 * loaded only when configured. Resolves once the SMTP listener listens (a port taken is an error here).
 */
export async function startInbound(
  config: Config,
  store: Store,
  log: Logger,
  options: { imap: boolean },
): Promise<Worker[]> {
  const deps = (name: string): NewsletterDeps => ({
    store,
    log: log.child({ worker: name }),
    baseUrl: config.baseUrl,
    inbound: config.inbound,
    queueLimit: config.queueLimit,
  });
  const started: Worker[] = [];
  if (config.inboundSmtp !== null) {
    const { startSmtpInbound } = await import('../newsletters/smtp.js');
    started.push(await startSmtpInbound(deps('inbound smtp'), config.inboundSmtp));
  }
  if (options.imap && config.inboundImap !== null) {
    const { startImapWatcher } = await import('../newsletters/imap.js');
    started.push(startImapWatcher({ ...deps('imap watcher'), imap: config.inboundImap, holder: workerId() }));
  }
  return started;
}
