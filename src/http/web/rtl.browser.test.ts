/**
 * Issue 36 point 4 in a real browser (Debian's Chromium, headless): an Arabic reader's pages and digest
 * e-mail are laid out right to left at a phone's width (390 px) and a desktop's — the brand at the right,
 * the navigation running leftwards, tables and text from the right, nothing scrolling sideways — and an
 * English reader's stay left to right.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { importSubscriptions } from '../../accounts/opml.js';
import { renderEmailHtml } from '../../digest/render/html.js';
import { digestView } from '../../digest/view.js';
import { updateAccountSettings } from '../../store/accounts.js';
import {
  type Browser,
  closeBrowserAndServer,
  chromiumSkipReason,
  launchBrowser,
  listeningServer,
  sidewaysOverflows,
} from '../../test/browser.js';
import { sampleDigest } from '../../test/digestFixtures.js';
import { saveUrl } from '../../test/digestPipeline.js';
import { testRefreshDeps } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

const PAGES = [
  '/queue',
  '/reading-list',
  '/feeds',
  '/newsletters',
  '/digests',
  '/settings',
  '/keys',
  '/save',
];
const WIDTHS = [390, 1280] as const;

interface Box {
  left: number;
  right: number;
  top: number;
}

const boxOf = (page: Page, selector: string): Promise<Box | null> =>
  page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (el === null) return null;
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top };
  })()`);

const direction = (page: Page): Promise<string> =>
  page.evaluate('getComputedStyle(document.documentElement).direction');

/** The first two navigation items: in a right-to-left page the first is right of the second on its row. */
const navPair = (page: Page): Promise<[Box, Box] | null> =>
  page.evaluate(`(() => {
    const items = [...document.querySelectorAll('header nav li')].slice(0, 2).map((li) => {
      const r = li.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top };
    });
    return items.length === 2 ? items : null;
  })()`);

await describeEachEngine('right to left in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  let account: Awaited<ReturnType<typeof newAccount>>;

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    account = await newAccount(ctx.store());
    await importSubscriptions(testRefreshDeps(ctx.store()), account.id, [
      {
        url: 'https://feeds.example/feed',
        title: 'A feed with a long enough name',
        htmlUrl: null,
        folder: null,
      },
    ]);
    await saveUrl(ctx.store(), account.id, 'https://example.com/story', 'A saved story');
    await updateAccountSettings(ctx.store().db, account.id, { language: 'ar' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
  });

  for (const width of WIDTHS) {
    test(`at ${width} px an Arabic reader's pages run right to left, none sideways`, { skip }, async () => {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await sidewaysOverflows(page, base, PAGES), []);
      for (const path of PAGES) {
        await page.goto(`${base}${path}`);
        assert.equal(await direction(page), 'rtl', path);
        // The bar is a centred column on a wide screen: the brand ends where it does.
        const [brand, bar] = [await boxOf(page, '.brand'), await boxOf(page, 'header .bar')];
        assert.ok(brand !== null && bar !== null, path);
        assert.ok(
          bar.right - brand.right < 48,
          `${path}: the brand at the right (${brand.right} of ${bar.right})`,
        );
        assert.ok(brand.left > (bar.left + bar.right) / 2, `${path}: the brand in the bar's right half`);
        const nav = await navPair(page);
        assert.ok(nav !== null, path);
        const [first, second] = nav;
        if (Math.abs(first.top - second.top) < 4) {
          assert.ok(first.left > second.left, `${path}: the first navigation item right of the second`);
        } else {
          assert.ok(first.top < second.top, `${path}: wrapped items go down, not up`);
        }
        const th = await page.evaluate(`(() => {
          const th = document.querySelector('th');
          return th === null ? null : getComputedStyle(th).textAlign;
        })()`);
        if (th !== null)
          assert.ok(
            th === 'start' || th === 'right',
            `${path}: headers from the right (${JSON.stringify(th)})`,
          );
      }
    });
  }

  test('an English reader’s pages stay left to right', { skip }, async () => {
    await updateAccountSettings(ctx.store().db, account.id, { language: 'en' });
    try {
      await page.setViewportSize({ width: 390, height: 900 });
      await page.goto(`${base}/queue`);
      assert.equal(await direction(page), 'ltr');
      const [brand, bar] = [await boxOf(page, '.brand'), await boxOf(page, 'header .bar')];
      assert.ok(brand !== null && bar !== null && brand.left - bar.left < 48, 'the brand at the left');
    } finally {
      await updateAccountSettings(ctx.store().db, account.id, { language: 'ar' });
    }
  });

  for (const width of WIDTHS) {
    test(
      `at ${width} px the Arabic digest e-mail reads from the right, its thumbnail on the left`,
      { skip },
      async () => {
        const sample = sampleDigest();
        const view = digestView({ ...sample, account: { ...sample.account, language: 'ar' } });
        const first = view.groups[0]?.items[0];
        assert.ok(first !== undefined);
        const image = {
          url: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=',
          width: 96,
          height: 64,
          alt: '',
        };
        const groups = view.groups.map((g, i) =>
          i === 0 ? { ...g, items: g.items.map((it, j) => (j === 0 ? { ...it, image } : it)) } : g,
        );
        // A page of its own: the web app's policy (no inline styles) would stay on a reused page.
        const mail = await browser.context.newPage();
        await mail.setViewportSize({ width, height: 900 });
        await mail.setContent(renderEmailHtml({ ...view, groups }));
        assert.equal(await direction(mail), 'rtl');
        const cells = await mail.evaluate(`(() => {
        const thumb = document.querySelector('td.td-thumb');
        const text = thumb.previousElementSibling;
        const t = thumb.getBoundingClientRect();
        const x = text.getBoundingClientRect();
        const s = getComputedStyle(thumb);
        return { thumbRight: t.right, textLeft: x.left, padRight: s.paddingRight, padLeft: s.paddingLeft };
      })()`);
        const c = cells as { thumbRight: number; textLeft: number; padRight: string; padLeft: string };
        assert.ok(c.thumbRight <= c.textLeft + 1, `the thumbnail left of the text (${JSON.stringify(c)})`);
        assert.deepEqual(
          [c.padRight, c.padLeft],
          ['16px', '0px'],
          `the gap on the text’s side (${JSON.stringify(c)})`,
        );
        const overflow = await mail.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        assert.ok(overflow <= 0, `no sideways scroll (${overflow} px)`);
        await mail.close();
      },
    );
  }
});
