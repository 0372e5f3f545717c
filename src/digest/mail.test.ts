import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { sampleDigest } from '../test/digestFixtures.js';
import { SmtpTestServer, type SmtpFault } from '../test/smtpServer.js';
import {
  MailError,
  type MailMessage,
  type Mailer,
  createMailer,
  digestMessageId,
  unsubscribeHeaders,
} from './mail.js';
import { digestSubject } from './render/common.js';
import { renderEmailHtml } from './render/html.js';
import { renderText } from './render/text.js';
import { digestView } from './view.js';

const FROM = 'Tidings <digest@news.example>';
const PASSWORD = 'p@ss:w/rd%é';
const view = digestView(sampleDigest());

let open: SmtpTestServer;
let authed: SmtpTestServer;
before(async () => {
  open = await SmtpTestServer.start();
  authed = await SmtpTestServer.start({ users: { 'ada@news.example': PASSWORD } });
});
after(async () => {
  await open.close();
  await authed.close();
});

const short = { connectMs: 2000, greetingMs: 2000, socketMs: 2000 };

function mailer(url: string, timeouts = short): Mailer {
  const m = createMailer({ smtpUrl: url, mailFrom: FROM }, { timeouts });
  assert.ok(m !== null);
  return m;
}

function message(over: Partial<MailMessage> = {}): MailMessage {
  return {
    to: 'reader@example.org',
    subject: digestSubject(view),
    html: renderEmailHtml(view),
    text: renderText(view),
    messageId: digestMessageId({ id: view.id, created_at: view.createdAt }, FROM),
    unsubscribeUrl: view.links.settings,
    date: new Date('2026-11-22T06:00:05.000Z'),
    ...over,
  };
}

/** Sends and returns the MailError it must fail with. */
async function failure(m: Mailer, msg = message()): Promise<MailError> {
  try {
    await m.send(msg);
  } catch (err) {
    assert.ok(err instanceof MailError, `not a MailError: ${String(err)}`);
    return err;
  } finally {
    m.close();
  }
  assert.fail('the send succeeded');
}

test('no SMTP configured: no mailer', () => {
  assert.equal(createMailer({ smtpUrl: null, mailFrom: null }), null);
  assert.equal(createMailer({ smtpUrl: null, mailFrom: FROM }), null);
});

test('a digest goes out as multipart/alternative with both bodies, its headers and a stable Message-ID', async () => {
  open.fail();
  const m = mailer(open.url());
  const msg = message();
  const sent = await m.send(msg);
  // A retry carries the same Message-ID.
  const again = await m.send(msg);
  m.close();
  assert.equal(sent.messageId, `<digest.42.${Date.parse(view.createdAt).toString(36)}@news.example>`);
  assert.equal(again.messageId, sent.messageId);
  assert.match(sent.response, /^250 .*queued/);

  const [first, second] = open.messages.slice(-2);
  assert.ok(first !== undefined && second !== undefined);
  assert.equal(first.from, 'digest@news.example');
  assert.deepEqual(first.to, ['reader@example.org']);
  const raw = first.raw.toString('utf8');
  assert.match(raw, /^Content-Type: multipart\/alternative;/im);
  assert.match(raw, /^Content-Type: text\/plain; charset=utf-8/im);
  assert.match(raw, /^Content-Type: text\/html; charset=utf-8/im);
  assert.match(raw, /^Auto-Submitted: auto-generated$/im);
  assert.match(raw, /^List-Unsubscribe: <https:\/\/news\.example\/settings>$/im);
  assert.doesNotMatch(raw, /^Subject: .*—/im, 'a non-ASCII subject is MIME-encoded');

  const mail = await simpleParser(first.raw);
  assert.equal(mail.subject, 'Tidings — Sunday 22 November: 6 new links');
  assert.equal(mail.from?.value[0]?.address, 'digest@news.example');
  assert.equal(mail.from.value[0].name, 'Tidings');
  const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
  assert.equal(to?.value[0]?.address, 'reader@example.org');
  assert.equal(mail.date?.toISOString(), '2026-11-22T06:00:05.000Z');
  assert.equal(mail.messageId, sent.messageId);
  assert.equal((await simpleParser(second.raw)).messageId, sent.messageId);
  assert.equal(mail.text, msg.text);
  assert.equal(mail.html, msg.html);
  assert.ok(typeof mail.html === 'string' && mail.html.includes('Zeta &lt;script&gt;'));
});

test('List-Unsubscribe: the mailto only when configured; List-Unsubscribe-Post only for an https link (RFC 8058)', () => {
  const https = 'https://news.example/unsubscribe/tok';
  assert.deepEqual(unsubscribeHeaders(https, null), {
    'List-Unsubscribe': `<${https}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  });
  assert.deepEqual(unsubscribeHeaders(https, 'off@news.example'), {
    'List-Unsubscribe': `<mailto:off@news.example?subject=unsubscribe>, <${https}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  });
  assert.deepEqual(unsubscribeHeaders('http://127.0.0.1:8080/unsubscribe/tok', null), {
    'List-Unsubscribe': '<http://127.0.0.1:8080/unsubscribe/tok>',
  });
});

test('credentials in the URL log in; a wrong password fails without showing it', async () => {
  const m = mailer(authed.url({ user: 'ada@news.example', pass: PASSWORD }));
  await m.send(message());
  m.close();
  assert.deepEqual(authed.logins.at(-1), { user: 'ada@news.example', ok: true });
  assert.equal(authed.messages.at(-1)?.user, 'ada@news.example');

  const wrong = await failure(mailer(authed.url({ user: 'ada@news.example', pass: `${PASSWORD}x` })));
  assert.equal(wrong.code, 'EAUTH');
  assert.equal(wrong.responseCode, 535);
  // The login, not the message, was refused: retried later, once the setting is fixed.
  assert.equal(wrong.temporary, true);
  assert.match(wrong.message, /refused the login: 535/);
  assert.ok(!wrong.message.includes(PASSWORD));

  // No credentials for a server that wants them: the same, a setting to fix.
  const anonymous = await failure(mailer(authed.url()));
  assert.equal(anonymous.responseCode, 530);
  assert.equal(anonymous.temporary, true);
  assert.match(anonymous.message, /refused the login: 530/);
});

const faults: [string, SmtpFault, { temporary: boolean; responseCode: number | null; message: RegExp }][] = [
  [
    '4xx at MAIL FROM',
    { step: 'MAIL', action: 'reply', code: 451, message: '4.3.0 Try again later' },
    {
      temporary: true,
      responseCode: 451,
      message: /deferred the message at MAIL: 451 4\.3\.0 Try again later/,
    },
  ],
  [
    '4xx at RCPT TO (greylisting)',
    { step: 'RCPT', action: 'reply', code: 450, message: '4.2.0 Greylisted' },
    { temporary: true, responseCode: 450, message: /deferred the message at RCPT: 450 4\.2\.0 Greylisted/ },
  ],
  [
    '4xx after DATA',
    { step: 'DATA', action: 'reply', code: 452, message: '4.3.1 Insufficient system storage' },
    { temporary: true, responseCode: 452, message: /deferred the message at DATA: 452/ },
  ],
  [
    '5xx at RCPT TO',
    { step: 'RCPT', action: 'reply', code: 550, message: '5.1.1 No such user' },
    {
      temporary: false,
      responseCode: 550,
      message: /rejected the message at RCPT: 550 5\.1\.1 No such user/,
    },
  ],
  [
    '5xx after DATA',
    { step: 'DATA', action: 'reply', code: 554, message: '5.7.1 Message refused as spam' },
    { temporary: false, responseCode: 554, message: /rejected the message at DATA: 554 5\.7\.1/ },
  ],
  [
    '421 at the greeting',
    { step: 'CONNECT', action: 'reply', code: 421, message: '4.3.2 Too busy' },
    { temporary: true, responseCode: 421, message: /deferred the connection: 421 4\.3\.2 Too busy/ },
  ],
  [
    'connection dropped at MAIL FROM',
    { step: 'MAIL', action: 'drop' },
    { temporary: true, responseCode: null, message: /127\.0\.0\.1:\d+ dropped the connection/ },
  ],
  [
    'connection dropped after the message, before the answer',
    { step: 'DATA', action: 'drop' },
    { temporary: true, responseCode: null, message: /127\.0\.0\.1:\d+ dropped the connection/ },
  ],
];

for (const [name, fault, expected] of faults) {
  test(`SMTP failure: ${name} → ${expected.temporary ? 'temporary' : 'permanent'}`, async () => {
    open.fail(fault);
    const before = open.messages.length;
    try {
      const err = await failure(mailer(open.url()));
      assert.equal(err.temporary, expected.temporary, err.message);
      assert.equal(err.responseCode, expected.responseCode, err.message);
      assert.match(err.message, expected.message);
      assert.equal(open.messages.length, before, 'nothing was accepted');
    } finally {
      open.fail();
    }
  });
}

test('the recipient is one address: a list or an injected header is refused, never sent to two', async () => {
  open.fail();
  const before = open.messages.length;
  for (const to of ['a@example.org, b@example.org', 'a@example.org\r\nBcc: c@example.org']) {
    const err = await failure(mailer(open.url()), message({ to }));
    assert.equal(err.temporary, false, err.message);
  }
  assert.equal(open.messages.length, before);
});

test('connection refused → temporary', async () => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  const err = await failure(mailer(`smtp://127.0.0.1:${port}`));
  assert.equal(err.temporary, true);
  assert.match(err.message, /127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\)/);
});

test('a server that never answers cannot hang a send: greeting and socket timeouts', async () => {
  // A TCP server that accepts and then says nothing at all.
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const { port } = silent.address() as AddressInfo;
  const quick = { connectMs: 300, greetingMs: 300, socketMs: 300 };
  try {
    let started = Date.now();
    const greeting = await failure(mailer(`smtp://127.0.0.1:${port}`, quick));
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(greeting.temporary, true);
    assert.match(greeting.message, /did not answer in time/);

    // A real SMTP server that goes quiet after the message was sent.
    open.fail({ step: 'DATA', action: 'hang' });
    started = Date.now();
    const data = await failure(mailer(open.url(), quick));
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(data.temporary, true);
    assert.match(data.message, /did not answer in time/);
  } finally {
    open.fail();
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

test('smtps:// speaks TLS from the first byte (a self-signed relay with tlsRejectUnauthorized=false)', async () => {
  const tls = await SmtpTestServer.start({ secure: true });
  try {
    const strict = await failure(mailer(tls.url()));
    assert.equal(strict.temporary, true, 'an untrusted certificate is a setting to fix, then retried');
    const m = mailer(`${tls.url()}?tlsRejectUnauthorized=false`);
    await m.send(message());
    m.close();
    assert.equal(tls.messages.length, 1);
  } finally {
    await tls.close();
  }
});

test('digestMessageId: stable per digest, different for a same-numbered digest of another database', () => {
  const a = digestMessageId({ id: 1, created_at: '2026-11-22T06:00:00.000Z' }, 'digest@news.example');
  assert.equal(a, digestMessageId({ id: 1, created_at: '2026-11-22T06:00:00.000Z' }, FROM));
  assert.match(a, /^<digest\.1\.[0-9a-z]+@news\.example>$/);
  assert.notEqual(a, digestMessageId({ id: 1, created_at: '2026-12-01T06:00:00.000Z' }, FROM));
});
