import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { ConfigError, configSchema, defaultPoolSize, defaultReaderThreads, loadConfig } from './config.js';

test('defaults: 127.0.0.1:8080, ./data/tidings.db, workers on', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.databaseUrl, './data/tidings.db');
  assert.equal(c.worker, true);
  assert.equal(c.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.logLevel, 'info');
});

test('TIDINGS_PUBLISH (where the compose files publish the port) is the default base URL', () => {
  const at = (vars: Record<string, string>): string => loadConfig({ HOST: '0.0.0.0', ...vars }).baseUrl;
  assert.equal(at({ TIDINGS_PUBLISH: '127.0.0.1:8091' }), 'http://127.0.0.1:8091');
  assert.equal(at({ TIDINGS_PUBLISH: '0.0.0.0:8080' }), 'http://127.0.0.1:8080');
  assert.equal(at({ TIDINGS_PUBLISH: '8091' }), 'http://127.0.0.1:8091');
  assert.equal(at({ TIDINGS_PUBLISH: '[::1]:8091' }), 'http://[::1]:8091');
  assert.equal(at({ TIDINGS_PUBLISH: 'tidings.lan:80' }), 'http://tidings.lan:80');
  assert.equal(
    at({ TIDINGS_PUBLISH: '127.0.0.1:8091', TIDINGS_BASE_URL: 'https://news.example' }),
    'https://news.example',
  );
  assert.equal(at({}), 'http://127.0.0.1:8080');
  for (const bad of ['127.0.0.1:', '127.0.0.1:0', '127.0.0.1:70000', 'http://x:80', 'a b:80']) {
    assert.throws(
      () => at({ TIDINGS_PUBLISH: bad }),
      /TIDINGS_PUBLISH: expected \[HOST:\]PORT, as in 127\.0\.0\.1:8080/,
      bad,
    );
  }
});

test('environment values are parsed and checked', () => {
  const c = loadConfig({
    PORT: '9000',
    HOST: '::1',
    TIDINGS_WORKER: 'false',
    LOG_LEVEL: 'warn',
    UNRELATED: 'x',
  });
  assert.equal(c.port, 9000);
  assert.equal(c.worker, false);
  assert.equal(c.baseUrl, 'http://[::1]:9000');
  assert.equal(loadConfig({ TIDINGS_BASE_URL: 'https://news.example/' }).baseUrl, 'https://news.example');
  assert.throws(
    () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /PORT/);
      assert.match(err.message, /LOG_LEVEL/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ TIDINGS_WORKER: 'maybe' }), ConfigError);
});

test('TIDINGS_UNSUBSCRIBE_MAILTO: a bare address, or unset (the https link only)', () => {
  assert.equal(loadConfig({}).unsubscribeMailto, null);
  assert.equal(
    loadConfig({ TIDINGS_UNSUBSCRIBE_MAILTO: 'unsubscribe@news.example' }).unsubscribeMailto,
    'unsubscribe@news.example',
  );
  for (const value of [
    'Tidings <off@news.example>',
    'not an address',
    'a@b.example?subject=x',
    'a@b.example, c@d.example',
  ]) {
    assert.throws(
      () => loadConfig({ TIDINGS_UNSUBSCRIBE_MAILTO: value }),
      (err: unknown) => err instanceof ConfigError && /TIDINGS_UNSUBSCRIBE_MAILTO/.test(err.message),
      value,
    );
  }
});

test('mail: TIDINGS_SMTP_URL (smtp or smtps) with TIDINGS_MAIL_FROM, or neither', () => {
  const none = loadConfig({});
  assert.equal(none.smtpUrl, null);
  assert.equal(none.mailFrom, null);
  const c = loadConfig({
    TIDINGS_SMTP_URL: 'smtp://ada%40news.example:p%40ss@mail.example:587',
    TIDINGS_MAIL_FROM: 'Tidings <digest@news.example>',
  });
  assert.equal(c.smtpUrl, 'smtp://ada%40news.example:p%40ss@mail.example:587');
  assert.equal(c.mailFrom, 'Tidings <digest@news.example>');
  const tls = loadConfig({
    TIDINGS_SMTP_URL: 'smtps://mail.example',
    TIDINGS_MAIL_FROM: 'digest@news.example',
  });
  assert.equal(tls.smtpUrl, 'smtps://mail.example');
  const named = loadConfig({
    TIDINGS_SMTP_URL: 'smtp://mail.example',
    TIDINGS_MAIL_FROM: '"Tidings, daily" <digest@news.example>',
  });
  assert.equal(named.mailFrom, '"Tidings, daily" <digest@news.example>');
  for (const env of [
    { TIDINGS_SMTP_URL: 'http://mail.example', TIDINGS_MAIL_FROM: 'digest@news.example' },
    { TIDINGS_SMTP_URL: 'mail.example:587', TIDINGS_MAIL_FROM: 'digest@news.example' },
    { TIDINGS_SMTP_URL: 'smtp://mail.example' }, // a From is required with SMTP
    { TIDINGS_SMTP_URL: 'smtp://mail.example', TIDINGS_MAIL_FROM: 'not an address' },
    { TIDINGS_SMTP_URL: 'smtp://mail.example', TIDINGS_MAIL_FROM: 'a@b.example\r\nBcc: x@y.example' },
    { TIDINGS_SMTP_URL: 'smtp://mail.example', TIDINGS_MAIL_FROM: 'Tidings <x<a@evil.test>>' },
    { TIDINGS_SMTP_URL: 'smtp://mail.example', TIDINGS_MAIL_FROM: 'Tidings <a b@example.org>' },
  ]) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && /TIDINGS_(SMTP_URL|MAIL_FROM)/.test(err.message),
      JSON.stringify(env),
    );
  }
  // The password never shows in the error about the URL.
  assert.throws(
    () => loadConfig({ TIDINGS_SMTP_URL: 'ftp://u:hunter2@mail.example', TIDINGS_MAIL_FROM: 'a@b.example' }),
    (err: unknown) => err instanceof ConfigError && !err.message.includes('hunter2'),
  );
});

test('every variable of the configuration schema is in the README configuration table', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const documented = new Set([...readme.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]));
  assert.deepEqual(
    Object.keys(configSchema.shape).filter((name) => !documented.has(name)),
    [],
  );
});

test('TIDINGS_READER_THREADS: 2 where there is a core to spare, else 1; 0 to 16 when set', () => {
  assert.equal(defaultReaderThreads(1), 1);
  assert.equal(defaultReaderThreads(2), 2);
  assert.equal(defaultReaderThreads(64), 2);
  assert.equal(loadConfig({}).readerThreads, defaultReaderThreads(availableParallelism()));
  assert.equal(loadConfig({ TIDINGS_READER_THREADS: '0' }).readerThreads, 0);
  assert.equal(loadConfig({ TIDINGS_READER_THREADS: '4' }).readerThreads, 4);
  assert.throws(() => loadConfig({ TIDINGS_READER_THREADS: '17' }), /TIDINGS_READER_THREADS/);
  assert.throws(() => loadConfig({ TIDINGS_READER_THREADS: 'many' }), ConfigError);
});

test('TIDINGS_READING_LIST_PACE: 20 pages a minute by default, 0 (off) to 600', () => {
  assert.equal(loadConfig({}).readingListPagesPerMinute, 20);
  assert.equal(loadConfig({ TIDINGS_READING_LIST_PACE: '0' }).readingListPagesPerMinute, 0);
  assert.equal(loadConfig({ TIDINGS_READING_LIST_PACE: '600' }).readingListPagesPerMinute, 600);
  assert.throws(() => loadConfig({ TIDINGS_READING_LIST_PACE: '601' }), /TIDINGS_READING_LIST_PACE/);
  assert.throws(() => loadConfig({ TIDINGS_READING_LIST_PACE: '-1' }), /TIDINGS_READING_LIST_PACE/);
  assert.throws(() => loadConfig({ TIDINGS_READING_LIST_PACE: 'fast' }), ConfigError);
});

test('TIDINGS_MEDIA_PROXY: on by default; off (or false) links images directly', () => {
  assert.equal(loadConfig({}).mediaProxy, true);
  assert.equal(loadConfig({ TIDINGS_MEDIA_PROXY: 'on' }).mediaProxy, true);
  assert.equal(loadConfig({ TIDINGS_MEDIA_PROXY: 'off' }).mediaProxy, false);
  assert.equal(loadConfig({ TIDINGS_MEDIA_PROXY: 'false' }).mediaProxy, false);
  assert.throws(() => loadConfig({ TIDINGS_MEDIA_PROXY: 'sometimes' }), /TIDINGS_MEDIA_PROXY/);
});

test('TIDINGS_PAGE_MAX_BYTES: 5 MiB by default, at least 1 KiB', () => {
  assert.equal(loadConfig({}).pageMaxBytes, 5 * 1024 * 1024);
  assert.equal(loadConfig({ TIDINGS_PAGE_MAX_BYTES: '1048576' }).pageMaxBytes, 1024 * 1024);
  assert.throws(() => loadConfig({ TIDINGS_PAGE_MAX_BYTES: '100' }), /TIDINGS_PAGE_MAX_BYTES/);
  assert.throws(() => loadConfig({ TIDINGS_PAGE_MAX_BYTES: 'lots' }), ConfigError);
});

test('metrics: off by default; TIDINGS_METRICS=true serves them on 127.0.0.1:9464, never on PORT', () => {
  assert.equal(loadConfig({}).metrics, null);
  assert.equal(loadConfig({ TIDINGS_METRICS_PORT: '9100' }).metrics, null, 'a port alone turns nothing on');
  assert.deepEqual(loadConfig({ TIDINGS_METRICS: 'true' }).metrics, {
    host: '127.0.0.1',
    port: 9464,
    token: null,
  });
  assert.deepEqual(
    loadConfig({
      TIDINGS_METRICS: 'yes',
      TIDINGS_METRICS_HOST: '0.0.0.0',
      TIDINGS_METRICS_PORT: '9100',
      TIDINGS_METRICS_TOKEN: 'a-long-enough-token',
    }).metrics,
    { host: '0.0.0.0', port: 9100, token: 'a-long-enough-token' },
  );
  assert.throws(() => loadConfig({ TIDINGS_METRICS: 'true', PORT: '9464' }), /TIDINGS_METRICS_PORT/);
  assert.equal(
    loadConfig({ TIDINGS_METRICS: 'true', PORT: '0', TIDINGS_METRICS_PORT: '0' }).metrics?.port,
    0,
  );
  for (const token of ['short', 'has a space in it somewhere']) {
    assert.throws(
      () => loadConfig({ TIDINGS_METRICS: 'true', TIDINGS_METRICS_TOKEN: token }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /TIDINGS_METRICS_TOKEN/.test(err.message) &&
        !err.message.includes(token),
    );
  }
});

test('PostgreSQL settings: pool sized for the machine, 30 s statement timeout and start window', () => {
  assert.deepEqual(
    [1, 2, 4, 8, 10, 16, 64].map((cores) => defaultPoolSize(cores)),
    [10, 10, 10, 16, 20, 20, 20],
  );
  const c = loadConfig({});
  assert.equal(c.databasePoolSize, defaultPoolSize(availableParallelism()));
  assert.equal(c.databaseStatementTimeoutMs, 30_000);
  assert.equal(c.databaseStartupTimeoutMs, 30_000);
  assert.equal(c.databaseCaFile, null);
  assert.equal(c.databaseDirectUrl, null);
  const set = loadConfig({
    DATABASE_URL: 'postgres://tidings@pgbouncer:6432/tidings',
    DATABASE_POOL_SIZE: '4',
    DATABASE_CA_FILE: '/etc/ssl/db-ca.pem',
    DATABASE_STATEMENT_TIMEOUT_MS: '0',
    DATABASE_STARTUP_TIMEOUT_MS: '500',
    DATABASE_DIRECT_URL: 'postgres://tidings@db:5432/tidings',
  });
  assert.deepEqual(
    [
      set.databasePoolSize,
      set.databaseCaFile,
      set.databaseStatementTimeoutMs,
      set.databaseStartupTimeoutMs,
      set.databaseDirectUrl,
    ],
    [4, '/etc/ssl/db-ca.pem', 0, 500, 'postgres://tidings@db:5432/tidings'],
  );
  for (const [name, value] of [
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'many'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['DATABASE_STARTUP_TIMEOUT_MS', '1.5'],
    ['DATABASE_DIRECT_URL', 'mysql://db/tidings'],
  ] as const) {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://db/tidings', [name]: value }),
      (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      `${name}=${value}`,
    );
  }
  assert.throws(
    () => loadConfig({ DATABASE_DIRECT_URL: 'postgres://db/tidings' }),
    /DATABASE_DIRECT_URL: only for PostgreSQL/,
  );
});

test('newsletters over SMTP and IMAP: off unless set; the SMTP listener on HOST by default; the IMAP URL read whole', () => {
  const off = loadConfig({});
  assert.equal(off.inboundSmtp, null);
  assert.equal(off.inboundImap, null);
  assert.deepEqual(loadConfig({ HOST: '0.0.0.0', TIDINGS_INBOUND_SMTP_PORT: '2525' }).inboundSmtp, {
    host: '0.0.0.0',
    port: 2525,
    tls: null,
  });
  assert.deepEqual(
    loadConfig({
      TIDINGS_INBOUND_SMTP_PORT: '25',
      TIDINGS_INBOUND_SMTP_HOST: '::',
      TIDINGS_INBOUND_SMTP_CERT: '/etc/tidings/cert.pem',
      TIDINGS_INBOUND_SMTP_KEY: '/etc/tidings/key.pem',
    }).inboundSmtp,
    { host: '::', port: 25, tls: { certFile: '/etc/tidings/cert.pem', keyFile: '/etc/tidings/key.pem' } },
  );
  assert.throws(
    () => loadConfig({ TIDINGS_INBOUND_SMTP_PORT: '25', TIDINGS_INBOUND_SMTP_CERT: '/etc/cert.pem' }),
    /TIDINGS_INBOUND_SMTP_KEY: set both/,
  );
  assert.throws(() => loadConfig({ TIDINGS_INBOUND_SMTP_PORT: '70000' }), ConfigError);
  assert.deepEqual(
    loadConfig({
      TIDINGS_INBOUND_IMAP_URL: 'imaps://me%40example.org:p%40ss%3Aw@mail.example.org/Newsletters%2FIn',
    }).inboundImap,
    {
      secure: true,
      host: 'mail.example.org',
      port: 993,
      user: 'me@example.org',
      pass: 'p@ss:w',
      mailbox: 'Newsletters/In',
    },
  );
  assert.deepEqual(loadConfig({ TIDINGS_INBOUND_IMAP_URL: 'imap://u:p@127.0.0.1:1143' }).inboundImap, {
    secure: false,
    host: '127.0.0.1',
    port: 1143,
    user: 'u',
    pass: 'p',
    mailbox: 'INBOX',
  });
  for (const bad of ['https://u:p@mail.example.org/INBOX', 'imap://mail.example.org/INBOX', 'not a url']) {
    assert.throws(
      () => loadConfig({ TIDINGS_INBOUND_IMAP_URL: bad }),
      /TIDINGS_INBOUND_IMAP_URL: expected imap:\/\//,
    );
  }
});
