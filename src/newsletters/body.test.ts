import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTrackingPixel } from '../lib/trackingPixels.js';
import { newsletterBody, summaryOf } from './body.js';
import { newToken, tokenOf } from './address.js';
import { unsubscribeKind } from './unsubscribe.js';

test('tracking pixels: 1×1, hidden, or from an open-tracking host; real images stay', () => {
  const src = 'https://cdn.example/a.png';
  assert.equal(isTrackingPixel({ width: '1', height: '1' }, src), true);
  assert.equal(isTrackingPixel({ width: '0' }, src), true);
  assert.equal(isTrackingPixel({ style: 'display: none' }, src), true);
  assert.equal(isTrackingPixel({ style: 'width:1px;height:1px;border:0' }, src), true);
  assert.equal(isTrackingPixel({}, 'https://x.us1.list-manage.com/track/open.php?u=1'), true);
  assert.equal(isTrackingPixel({}, 'https://eotrx.substackcdn.com/open?token=1'), true);
  assert.equal(isTrackingPixel({}, 'https://u1.ct.sendgrid.net/wf/open?upn=1'), true);
  assert.equal(isTrackingPixel({ width: '600', height: '400' }, src), false);
  assert.equal(isTrackingPixel({ width: '12', style: 'max-width:100%' }, src), false);
  assert.equal(isTrackingPixel({}, 'https://x.us1.list-manage.com/images/banner.png'), false);
});

test('the body: no script, hidden or javascript:, tracking parameters gone, attachments listed', () => {
  const body = newsletterBody(
    {
      html: `<div style="display:none">preheader</div><p>A first paragraph that is long enough to be the summary.</p>
        <p><a href="https://shop.example/b?id=7&utm_source=nl&mc_eid=x#top">a book</a> <a href="javascript:alert(1)">x</a></p>
        <img src="https://cdn.example/p.gif" width="1" height="1"><script>alert(1)</script>`,
      text: null,
    },
    ['report.pdf', '<b>evil</b>.png'],
  );
  const html = body.html ?? '';
  assert.doesNotMatch(html, /preheader|script|javascript|p\.gif|utm_|mc_eid/);
  assert.match(html, /href="https:\/\/shop\.example\/b\?id=7#top"/);
  assert.match(html, /<li>report\.pdf<\/li><li>&lt;b&gt;evil&lt;\/b&gt;\.png<\/li>/);
  assert.equal(body.summary, 'A first paragraph that is long enough to be the summary.');
  assert.ok(body.wordCount > 10);
  const text = newsletterBody({
    html: null,
    text: 'Hello,\n\nA plain text letter, with <angle> brackets kept.\n',
  });
  assert.match(text.html ?? '', /<p>A plain text letter, with &lt;angle&gt; brackets kept\.<\/p>/);
});

test('the summary skips boilerplate and short lines, and keeps whole sentences', () => {
  assert.equal(
    summaryOf([
      'View this email in your browser',
      'Having trouble viewing this email? Click here to see it online.',
      'Issue #42',
      'The council voted last night to close the old bridge for a year. Repairs start in May. More later.',
    ]),
    'The council voted last night to close the old bridge for a year. Repairs start in May. More later.',
  );
  const long = summaryOf(['A sentence of some length here. '.repeat(12).trim()]) ?? '';
  assert.ok(long.length <= 300 && long.endsWith('.'), long);
  assert.equal(summaryOf(['Unsubscribe from this list and update your preferences at any time.']), null);
});

test("a body's summary is the whole body's, read only as far as it needs", () => {
  const real = (n: number): string =>
    `Paragraph ${n} tells what happened in the town this week, at some length.`;
  // Real paragraphs at once: the first few are read.
  const early = newsletterBody({
    html: Array.from({ length: 200 }, (_, n) => `<p>${real(n)}</p>`).join(''),
    text: null,
  });
  assert.equal(early.summary, summaryOf(Array.from({ length: 200 }, (_, n) => real(n))));
  assert.match(early.summary ?? '', /^Paragraph 0 tells .* Paragraph 3 tells/);
  // Past 4,096 characters of headings and boilerplate, the rest is read as far as the text's cap.
  const headings = Array.from({ length: 300 }, (_, n) => `<h3>Short heading ${n}</h3>`).join('');
  const late = newsletterBody({
    html: `<p><a href="https://l.example/v">View this email in your browser</a></p>${headings}<p>${real(1)}</p>`,
    text: null,
  });
  assert.equal(late.summary, real(1));
  assert.equal(late.webVersion, 'https://l.example/v');
  // Only boilerplate and headings: none.
  assert.equal(newsletterBody({ html: headings, text: null }).summary, null);
});

test('addresses: 160-bit lowercase tokens; only the configured domain matches', () => {
  const token = newToken();
  assert.match(token, /^[a-z2-7]{32}$/);
  assert.notEqual(newToken(), token);
  assert.equal(tokenOf(`${token.toUpperCase()}@In.Example`, 'in.example'), token);
  assert.equal(tokenOf(`<${token}@in.example>`, 'in.example'), token);
  assert.equal(tokenOf(`${token}@other.example`, 'in.example'), null);
  assert.equal(tokenOf(`${token}@in.example`, null), null);
  assert.equal(tokenOf('short@in.example', 'in.example'), null);
});

test('unsubscribe: one-click, mailto, link or none', () => {
  const both = '<https://l.example/u?x=1>, <mailto:u@l.example>';
  assert.equal(unsubscribeKind(both, 'List-Unsubscribe=One-Click'), 'one-click');
  assert.equal(unsubscribeKind(both, null), 'mailto');
  assert.equal(unsubscribeKind('<http://l.example/u>', 'List-Unsubscribe=One-Click'), 'link');
  assert.equal(unsubscribeKind(null, null), 'none');
  assert.equal(unsubscribeKind('junk', null), 'none');
});
