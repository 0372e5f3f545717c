import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { domainToUnicode } from 'node:url';
import { simpleParser } from 'mailparser';
import { MailError, createMailer } from '../digest/mail.js';
import { SmtpTestServer } from '../test/smtpServer.js';
import { EMAIL_MAX_LENGTH, emailAddressProblem, isEmailAddress, parseMailbox } from './email.js';

const local64 = 'l'.repeat(64);
/** Domains of 188 and 189 characters: with a 64-character local part, addresses of 253 and 254. */
const domain188 = `${'d'.repeat(60)}.${'d'.repeat(59)}.${'d'.repeat(59)}.example`;
const domain189 = `${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(59)}.example`;

/** Accepted: each is what an SMTP envelope carries. */
const GOOD = [
  'reader@example.org',
  'Reader.Name@Example.ORG',
  'first.last+tag@mail.example.co.uk',
  "o'brien@example.ie",
  "!#$%&'*+-/=?^_`{|}~@example.org",
  'a@b.co',
  'x@xn--bcher-kva.example',
  'a-b@sub-domain.example',
  '"a;b:c(d)"@example.org',
  '"a,b"@example.org',
  '"a\\"b"@example.org',
  '"a\\\\b"@example.org',
  'a@[192.0.2.1]',
  'a@[IPv6:2001:db8::1]',
  `${local64}@example.org`,
  `${local64}@${domain188}`,
];

/** Refused, and why (a fragment of the reason). */
const BAD: [string, RegExp][] = [
  ['x<a@evil.test>', /characters an address cannot have/],
  ['<a@evil.test>', /characters an address cannot have/],
  ['a@evil.test>', /domain may only have/],
  ['Name <a@evil.test>', /spaces/],
  ['a@b.example, c@d.example', /spaces/],
  ['a@b.example,c@d.example', /more than one @/],
  ['a@b@c.example', /more than one @/],
  ['a b@example.org', /spaces/],
  [' a@example.org', /spaces/],
  ['a@example.org\r\nBcc: x@y.example', /control characters/],
  ['a\u0000@example.org', /control characters/],
  ['a\t@example.org', /control characters/],
  ['zoë@example.org', /non-ASCII/],
  ['a@bücher.example', /non-ASCII/],
  ['nope', /no @/],
  ['@example.org', /nothing before the @/],
  ['a@', /nothing after the @/],
  ['a@localhost', /needs a dot/],
  ['a@example', /needs a dot/],
  ['.a@example.org', /characters an address cannot have/],
  ['a.@example.org', /characters an address cannot have/],
  ['a..b@example.org', /characters an address cannot have/],
  ['a(comment)@example.org', /characters an address cannot have/],
  ['a;b@example.org', /characters an address cannot have/],
  ['a:b@example.org', /characters an address cannot have/],
  ['a[b]@example.org', /characters an address cannot have/],
  ['"a b"@example.org', /spaces/],
  ['"a..b"@example.org', /characters an address cannot have/],
  ['"a<b"@example.org', /characters an address cannot have/],
  ['"a>b"@example.org', /characters an address cannot have/],
  ['"a@b"@example.org', /more than one @/],
  ['"a"b"@example.org', /characters an address cannot have/],
  ['""@example.org', /characters an address cannot have/],
  ['a@-example.org', /domain may only have/],
  ['a@example-.org', /domain may only have/],
  ['a@exa_mple.org', /domain may only have/],
  ['a@example..org', /domain may only have/],
  ['a@example.org.', /domain may only have/],
  ['a@.example.org', /domain may only have/],
  [`a@${'d'.repeat(64)}.example`, /domain may only have/],
  ['a@192.0.2.1', /ends in a number/],
  ['a@[192.0.2.256]', /not an IPv4 address/],
  ['a@[2001:db8::1]', /not an IPv4 address/],
  ['a@[IPv6:2001:db8::g]', /not an IPv4 address/],
  ['a@[example.org]', /not an IPv4 address/],
  [`${local64}l@example.org`, /more than 64 characters before the @/],
  [`${local64}@${domain189}`, /longer than 253/],
];

test('the table of addresses: each good one accepted, each bad one refused with its reason', () => {
  assert.equal(GOOD.at(-1)?.length, EMAIL_MAX_LENGTH);
  assert.equal(BAD.at(-1)?.[0].length, EMAIL_MAX_LENGTH + 1);
  for (const address of GOOD) assert.equal(emailAddressProblem(address), null, address);
  for (const [address, reason] of BAD) {
    assert.equal(isEmailAddress(address), false, address);
    assert.match(emailAddressProblem(address) ?? '', reason, address);
  }
});

test('a From mailbox: an address, with or without a display name', () => {
  const cases: [string, { name: string; address: string } | null][] = [
    ['digest@example.org', { name: '', address: 'digest@example.org' }],
    ['Tidings <digest@example.org>', { name: 'Tidings', address: 'digest@example.org' }],
    ['  Tidings   <digest@example.org>  ', { name: 'Tidings', address: 'digest@example.org' }],
    ['<digest@example.org>', { name: '', address: 'digest@example.org' }],
    // A From may have a name: "x" and the address a@evil.test (as a recipient this is no address).
    ['x<a@evil.test>', { name: 'x', address: 'a@evil.test' }],
    ['"Tidings, daily" <digest@example.org>', { name: 'Tidings, daily', address: 'digest@example.org' }],
    ['"The \\"news\\"" <digest@example.org>', { name: 'The "news"', address: 'digest@example.org' }],
    ['Zoë’s Tidings <digest@example.org>', { name: 'Zoë’s Tidings', address: 'digest@example.org' }],
    ['Tidings <x<a@evil.test>>', null],
    ['Tidings <a@evil.test> <b@evil.test>', null],
    ['Tidings <a@evil.test', null],
    ['Tidings a@evil.test', null],
    ['Tid"ings <digest@example.org>', null],
    ['Tidings\r\nBcc: x@y.example <digest@example.org>', null],
    ['Tidings <digest@example.org>\r\nBcc: x@y.example', null],
    ['Tidings <>', null],
  ];
  for (const [value, expected] of cases) assert.deepEqual(parseMailbox(value), expected, value);
});

let smtp: SmtpTestServer;
before(async () => {
  smtp = await SmtpTestServer.start();
});
after(() => smtp.close());

test('a real SMTP conversation: every accepted address is taken by the server as the recipient', async () => {
  const from = '"Tidings, daily" <digest@news.example>';
  const mailer = createMailer({ smtpUrl: smtp.url(), mailFrom: from });
  assert.ok(mailer !== null);
  try {
    for (const to of GOOD) {
      const sent = smtp.messages.length;
      const message = { subject: 'Hello', text: 'Hi', html: '<p>Hi</p>', messageId: `<${sent}@x.example>` };
      await mailer.send({ to, ...message }).catch((err: unknown) => {
        throw new Error(`${to} was refused`, { cause: err });
      });
      const received = smtp.messages[sent];
      assert.ok(received !== undefined, to);
      // The envelope as the server read it: the local part as sent, a domain name in lower case (an xn--
      // one in Unicode), an address literal as sent.
      const at = to.lastIndexOf('@');
      const domain = to.slice(at + 1);
      const shown = domain.startsWith('[') ? domain : domainToUnicode(domain);
      assert.deepEqual(received.to, [`${to.slice(0, at)}@${shown}`], to);
      assert.equal(received.from, 'digest@news.example');
      const parsed = await simpleParser(received.raw);
      assert.deepEqual(
        parsed.from?.value.map((v) => [v.name, v.address]),
        [['Tidings, daily', 'digest@news.example']],
        'the comma in the name makes no second address',
      );
    }
  } finally {
    mailer.close();
  }
});

test('what the old rule let through is what the server refuses: "x<a@evil.test>" fails permanently at RCPT', async () => {
  const mailer = createMailer({ smtpUrl: smtp.url(), mailFrom: 'digest@news.example' });
  assert.ok(mailer !== null);
  try {
    await assert.rejects(
      mailer.send({
        to: 'x<a@evil.test>',
        subject: 'Hello',
        text: 'Hi',
        html: '<p>Hi</p>',
        messageId: '<x@news.example>',
      }),
      (err: unknown) => err instanceof MailError && !err.temporary && err.responseCode === 501,
    );
  } finally {
    mailer.close();
  }
  assert.equal(isEmailAddress('x<a@evil.test>'), false);
});
