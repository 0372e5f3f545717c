/**
 * bench:digest-quality's simulation on one engine, through the real pipeline with an injected clock: the
 * configuration read as `tidings serve` reads it (private networks allowed, for the loopback sites), the
 * server's store (migrated), the real HTTP server in process (the API's saves, the digest's web pages), the
 * real poller (src/feeds/poller.ts) fetching the loopback sites, the real digest build and delivery
 * (src/digest/worker.ts's pass: build.ts, deliver.ts) to a real SMTP server. The clock moves in steps of 10 minutes: at each,
 * due feeds are polled, the morning's saves are posted, and due digests are built and delivered, as the
 * worker would. After each build, the digest's rows, its e-mail and its web pages are captured.
 */
import { changeAccountSettings } from '../src/accounts/changeSettings.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { parseSettings } from '../src/accounts/settings.js';
import { startServerStore } from '../src/cli/database.js';
import { loadConfig } from '../src/config.js';
import { digestDeps } from '../src/digest/deps.js';
import { runDigestPass } from '../src/digest/worker.js';
import { feedDeps } from '../src/feeds/deps.js';
import { pollOnce } from '../src/feeds/poller.js';
import { subscribe } from '../src/feeds/subscribe/subscribe.js';
import { buildServer } from '../src/http/server.js';
import { createLogger } from '../src/logger.js';
import type { Engine, Store } from '../src/store/db.js';
import { createTestDatabase } from '../src/test/databases.js';
import { SmtpTestServer } from '../src/test/smtpServer.js';
import { ScenarioSites } from './digest-quality-feeds.js';
import { type DayCapture, type DigestRowItem, webLinkOf } from './digest-quality-measure.js';
import { DAY, HOUR, type Scenario, type ScenarioSave } from './digest-quality-scenario.js';
import { freePort } from './processes.js';

const STEP = 10 * 60_000;
/** The account is made, and its feeds followed, at 07:10 on day 0: its first digest is day 1's at 07:00. */
const SUBSCRIBED_AT = 7 * HOUR + 10 * 60_000;

export interface SimResult {
  captures: DayCapture[];
  arrived: Map<string, number>;
  documents: number;
  notModified: number;
  polls: number;
  seconds: number;
}

/** Runs the scenario on a fresh database of `engine`; everything it started is stopped, the database dropped. */
export async function simulate(
  engine: Engine,
  scenario: Scenario,
  progress: (line: string) => void,
): Promise<SimResult> {
  const started = Date.now();
  const clock = { t: scenario.start + SUBSCRIBED_AT };
  const now = (): Date => new Date(clock.t);
  const undo: (() => Promise<void>)[] = [];
  try {
    const db = await createTestDatabase(engine);
    undo.push(() => db.drop());
    const smtp = await SmtpTestServer.start();
    undo.push(() => smtp.close());
    const sites = await ScenarioSites.start(scenario.feeds, () => clock.t);
    undo.push(() => sites.close());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      TIDINGS_BASE_URL: base,
      TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
      TIDINGS_SMTP_URL: smtp.url(),
      TIDINGS_MAIL_FROM: 'Tidings <digest@tidings.example>',
      TIDINGS_WORKER: 'false',
      LOG_LEVEL: 'silent',
    });
    const logger = createLogger(config.logLevel);
    const { store } = await startServerStore(config, logger);
    undo.push(() => store.close());
    const app = buildServer({ config, store, logger });
    await app.listen({ port, host: '127.0.0.1' });
    undo.push(() => app.close());

    const { account, apiKey } = await createAccountWithKey(store, {
      name: 'Reader',
      email: 'reader@example.org',
    });
    // Creating an account schedules its first digest by the wall clock (accounts/service.ts): setting the
    // default send time again, as `account set --time 07:00` would, schedules it by the simulated one.
    await changeAccountSettings(store, account.id, parseSettings({ time: '07:00' }), now());
    const feeds = { ...feedDeps(config, store, logger), now };
    const digests = { ...digestDeps(config, store, logger), now };
    for (const f of scenario.feeds) await subscribe(feeds, account.id, { url: sites.url(f) });
    progress(
      `  ${engine}: followed ${scenario.feeds.length} feeds, ${await queueLength(store, account.id)} items queued`,
    );

    const captures: DayCapture[] = [];
    const pending = [...scenario.saves].sort((a, b) => a.at - b.at);
    const end = scenario.start + scenario.days * DAY + 7 * HOUR;
    let previousBuild = clock.t;
    let queueBefore = await queueLength(store, account.id);
    let polls = 0;
    let dueAt = await digestDueAt(store, account.id);
    while (clock.t < end) {
      clock.t += STEP;
      await pollOnce(feeds);
      polls++;
      while (pending[0] !== undefined && pending[0].at <= clock.t) {
        const save = pending.shift();
        if (save !== undefined) await postSave(base, apiKey, save);
      }
      // The digest worker's pass (every 30 s in `tidings worker`), run when the account's digest is due:
      // the passes in between find nothing to build or send.
      if (clock.t < dueAt) continue;
      const { builds, deliveries } = await runDigestPass(digests);
      dueAt = await digestDueAt(store, account.id);
      const broken = builds.find((o) => o.status === 'error' || o.status === 'lease_lost');
      if (broken !== undefined) throw new Error(`a digest build failed: ${JSON.stringify(broken)}`);
      const built = builds.filter((o) => o.status === 'built');
      const unsent = deliveries.find((o) => o.status !== 'sent');
      if (unsent !== undefined) throw new Error(`a digest was not e-mailed: ${JSON.stringify(unsent)}`);
      const sent = deliveries.length;
      for (const outcome of built) {
        const day = Math.round((clock.t - 7 * HOUR - scenario.start) / DAY);
        const queueAfter = await queueLength(store, account.id);
        const captured = await captureDigest(store, smtp, base, outcome.digestId, day);
        captures.push({ ...captured, builtAt: clock.t, previousBuild, queueBefore, queueAfter });
        progress(
          `  ${engine}: day ${day} digest ${outcome.digestId}: ${captured.items.length} items, ` +
            `${sent} e-mail sent, ${captured.webPages.length} web page(s), queue ${queueBefore} → ${queueAfter} ` +
            `(${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
        previousBuild = clock.t;
        queueBefore = queueAfter;
      }
    }
    return {
      captures,
      arrived: sites.arrived,
      documents: sites.served,
      notModified: sites.notModified,
      polls,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const step of undo.reverse()) await step().catch(() => undefined);
  }
}

/** When the account's next digest is due (ms), as the schedule stored it. */
async function digestDueAt(store: Store, accountId: number): Promise<number> {
  const row = await store.db
    .selectFrom('accounts')
    .select('digest_due_at')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (row.digest_due_at === null) throw new Error('the account has no digest scheduled');
  return Date.parse(row.digest_due_at);
}

async function queueLength(store: Store, accountId: number): Promise<number> {
  const row = await store.db
    .selectFrom('queue_items')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A save through the API, variant A (`/api/v1/articles?apiKey=`) or B (`/api`, the key in the body). */
async function postSave(base: string, apiKey: string, save: ScenarioSave): Promise<void> {
  const form = new URLSearchParams({ url: save.url, title: save.title });
  let target = `${base}/api/v1/articles?apiKey=${encodeURIComponent(apiKey)}`;
  if (save.variant === 'B') {
    target = `${base}/api`;
    form.set('api_key', apiKey);
  }
  const res = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`save ${save.url} (variant ${save.variant}): HTTP ${res.status} ${body}`);
}

/** The digest's rows, the e-mail the SMTP server received for it, and its web pages as served. */
async function captureDigest(
  store: Store,
  smtp: SmtpTestServer,
  base: string,
  digestId: number,
  day: number,
): Promise<Omit<DayCapture, 'builtAt' | 'previousBuild' | 'queueBefore' | 'queueAfter'>> {
  const digest = await store.db
    .selectFrom('digests')
    .select(['message_id', 'account_id'])
    .where('id', '=', digestId)
    .executeTakeFirstOrThrow();
  const items: DigestRowItem[] = await store.db
    .selectFrom('digest_items')
    .select(['position', 'url', 'source', 'feed_id', 'published_at', 'shown', 'story_of'])
    .where('digest_id', '=', digestId)
    .orderBy('position')
    .execute();
  const id = digest.message_id.replace(/^<|>$/g, '');
  const mail = smtp.messages.find((m) => m.raw.includes(id));
  if (mail === undefined) throw new Error(`no e-mail received for digest ${digestId}`);
  let web = await webLinkOf(mail.raw, digestId);
  if (web === null) {
    // The e-mail names no web page: the account's digest token, as the web app's archive links it.
    const row = await store.db
      .selectFrom('digest_tokens')
      .select('token')
      .where('account_id', '=', digest.account_id)
      .executeTakeFirstOrThrow();
    web = `${base}/digests/${digestId}?token=${row.token}`;
  }
  const webPages: string[] = [];
  for (let page = 1; page <= 200; page++) {
    const res = await fetch(`${web}&page=${page}`);
    const body = await res.text();
    if (res.status === 404 && page > 1) break;
    if (!res.ok) throw new Error(`web page ${page} of digest ${digestId}: HTTP ${res.status}`);
    webPages.push(body);
  }
  return { day, digestId, items, raw: mail.raw, webPages };
}
