import type { DigestDeps } from '../digest/deps.js';
import { MailError, type MailMessage, type Mailer, type SentMail } from '../digest/mail.js';
import { addSavedUrl } from '../queue/add.js';
import { checkItem, enqueue } from '../queue/enqueue.js';
import type { Store } from '../store/db.js';
import type { DigestItem } from '../store/digestItems.js';
import type { Digest } from '../store/digests.js';
import { findOrCreateFeed } from '../store/feeds.js';
import { createSubscription } from '../store/subscriptions.js';
import { silentLogger } from './harness.js';

/** A clock a test moves by hand. */
export class TestClock {
  private t: number;
  constructor(iso: string) {
    this.t = Date.parse(iso);
  }
  readonly now = (): Date => new Date(this.t);
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A Mailer that keeps what it is given; `failWith` makes the next sends fail as a real server could. */
export class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  /** Failures for the next sends, in order; an empty list sends. */
  failures: MailError[] = [];
  /** Runs inside send, before the message counts as sent (to stop a test mid-send). */
  during: (() => Promise<void>) | undefined;

  async send(message: MailMessage): Promise<SentMail> {
    await this.during?.();
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.sent.push(message);
    return { messageId: message.messageId, response: '250 ok' };
  }
  close(): void {
    // nothing to close
  }
}

export const temporaryFailure = (): MailError =>
  new MailError('the SMTP server deferred the message: 451 try later', true, 451);
export const permanentFailure = (): MailError =>
  new MailError('the SMTP server rejected the message: 550 no such user', false, 550);

export function testDigestDeps(
  store: Store,
  overrides: {
    now?: () => Date;
    mailer?: Mailer | null;
    mailFrom?: string | null;
    leaseMs?: number;
    ereaderMaxBytes?: number;
  } = {},
): DigestDeps {
  const mailer = overrides.mailer ?? null;
  return {
    store,
    log: silentLogger,
    now: overrides.now ?? (() => new Date()),
    mailer,
    mailFrom: overrides.mailFrom ?? (mailer === null ? null : 'Tidings <digest@tidings.example>'),
    baseUrl: 'https://tidings.example',
    leaseMs: overrides.leaseMs ?? 5 * 60_000,
    random: () => 0.5,
    ...(overrides.ereaderMaxBytes === undefined ? {} : { ereaderMaxBytes: overrides.ereaderMaxBytes }),
  };
}

/** Saves a URL through the API's path. */
export async function saveUrl(store: Store, accountId: number, url: string, title?: string): Promise<void> {
  await addSavedUrl(store, accountId, { url, title, source: 'api' }, { limit: 10_000 });
}

/** Queues a feed item as the feed path does, subscribing the account to the feed first. */
export async function queueFeedItem(
  store: Store,
  accountId: number,
  item: {
    feedUrl: string;
    feedTitle: string;
    url: string;
    title: string;
    summary?: string;
    published?: string;
    subscriptionTitle?: string;
    imageUrl?: string;
  },
): Promise<number> {
  const at = new Date().toISOString();
  const feed = await findOrCreateFeed(store.db, {
    url: item.feedUrl,
    title: item.feedTitle,
    siteUrl: null,
    at,
  });
  await createSubscription(store.db, accountId, {
    feedId: feed.id,
    title: item.subscriptionTitle ?? null,
    at,
  });
  await store.db.transaction().execute((trx) =>
    enqueue(
      trx,
      accountId,
      [
        checkItem({
          url: item.url,
          title: item.title,
          source: 'feed',
          feedId: feed.id,
          summary: item.summary ?? null,
          publishedAt: item.published ?? null,
          imageUrl: item.imageUrl ?? null,
        }),
      ],
      { engine: store.engine, limit: 10_000 },
    ),
  );
  return feed.id;
}

export async function setDueAt(store: Store, accountId: number, iso: string | null): Promise<void> {
  await store.db.updateTable('accounts').set({ digest_due_at: iso }).where('id', '=', accountId).execute();
}

export async function dueAt(store: Store, accountId: number): Promise<string | null> {
  const row = await store.db
    .selectFrom('accounts')
    .select('digest_due_at')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.digest_due_at;
}

export async function digestsOf(store: Store, accountId: number): Promise<Digest[]> {
  return store.db
    .selectFrom('digests')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** All of a digest's items in digest order (renderings read them a page at a time). */
export async function itemsOf(store: Store, digestId: number): Promise<DigestItem[]> {
  return store.db
    .selectFrom('digest_items')
    .selectAll()
    .where('digest_id', '=', digestId)
    .orderBy('position')
    .execute();
}

export async function setEmail(
  store: Store,
  accountId: number,
  email: string | null,
  enabled = true,
): Promise<void> {
  await store.db
    .updateTable('accounts')
    .set({ email, email_enabled: enabled ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
}
