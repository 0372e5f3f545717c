/**
 * Digests show what was read of their items' pages (issue 11): the build carries page_id and image_url
 * into digest_items, the load joins the page, and every rendering (HTML email, plain text, web page,
 * Atom) shows the title by the title rule, the site, the reading time, the description, the thumbnail
 * with its size and alt text, and the link without tracking parameters; the account's switches turn
 * images off and keep the parameters.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { changeAccountSettings } from '../accounts/changeSettings.js';
import { parseSettings } from '../accounts/settings.js';
import type { AccountId } from '../lib/authorized.js';
import { ARTICLE, insertPage, linkQueuedPage } from '../test/pages.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { itemsOf, queueFeedItem, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { buildDigestNow } from './build.js';
import { type LoadedDigest, loadDigest } from './load.js';
import { renderAtom } from './render/atom.js';
import { renderEmailHtml, renderWebPage } from './render/html.js';
import { renderText } from './render/text.js';

const BASE = 'https://tidings.example';
const TRACKED = 'https://sea.example/tides?utm_source=newsletter&id=7&fbclid=abc';
const CLEAN = 'https://sea.example/tides?id=7';
const NAMED = 'https://sea.example/named';
const HOSTILE = 'https://sea.example/hostile';
const FEED_ITEM = 'https://feed.example/post?utm_medium=rss';
const LONG = `${'Waves roll in from far away and break upon the shore. '.repeat(12)}The end.`;

/** The digest markup an Atom entry carries (feedsmith writes it as CDATA). */
const atomOf = (loaded: LoadedDigest): string => {
  const xml = renderAtom({
    account: loaded.account,
    digests: [loaded.view],
    feedUrl: `${BASE}/digests.atom`,
    baseUrl: BASE,
  });
  const m = /<!\[CDATA\[([\s\S]*)\]\]>/.exec(xml);
  assert.ok(m?.[1] !== undefined, 'the entry carries its content as CDATA');
  return m[1];
};

await describeEachEngine('digests show the pages read for their items', (ctx) => {
  let accountId: AccountId;
  let digestId = 0;
  let tidesPage = 0;
  const load = async (): Promise<LoadedDigest> => {
    const loaded = await loadDigest(ctx.store().db, accountId, digestId, BASE, { page: 1 });
    assert.ok(loaded !== null);
    return loaded;
  };

  before(async () => {
    const store = ctx.store();
    accountId = (await newAccount(store)).id;
    await saveUrl(store, accountId, TRACKED); // no title: the API stores the URL as the title
    await saveUrl(store, accountId, NAMED, 'My own name for it');
    await saveUrl(store, accountId, HOSTILE);
    await queueFeedItem(store, accountId, {
      feedUrl: 'https://feed.example/feed.xml',
      feedTitle: 'Feed Example',
      url: FEED_ITEM,
      title: 'A feed item with a picture',
      summary: 'The feed’s own summary.',
      imageUrl: 'https://feed.example/pic.png',
    });
    tidesPage = await insertPage(store, { url: CLEAN, ...ARTICLE, description: LONG });
    await linkQueuedPage(store, accountId, TRACKED, tidesPage);
    await linkQueuedPage(
      store,
      accountId,
      NAMED,
      await insertPage(store, { url: NAMED, title: 'The page’s own title', html: null, reading_minutes: 0 }),
    );
    const hostile = await insertPage(store, {
      url: HOSTILE,
      title: '<script>alert("title")</script>Hostile',
      site_name: '"><img src=x onerror=alert(1)>',
      description: '<iframe src="javascript:alert(2)"></iframe> and <b onclick="x()">bold</b>',
      image_url: 'javascript:alert(3)',
      reading_minutes: 2,
    });
    await linkQueuedPage(store, accountId, HOSTILE, hostile);
    const built = await buildDigestNow(testDigestDeps(store), accountId);
    assert.equal(built.status, 'built');
    digestId = built.digestId;
  });

  test('the build copies page_id and the feed item’s image_url into the digest', async () => {
    const items = await itemsOf(ctx.store(), digestId);
    assert.equal(items.length, 4);
    const tides = items.find((i) => i.url === TRACKED);
    const feed = items.find((i) => i.url === FEED_ITEM);
    assert.ok(tides !== undefined && feed !== undefined);
    assert.equal(tides.page_id, tidesPage);
    assert.equal(tides.title, TRACKED, 'the stored title is the URL, as saved');
    assert.equal(feed.image_url, 'https://feed.example/pic.png');
    assert.equal(feed.page_id, null);
  });

  test('the view: title rule, site, reading time, a description cut on a word, the lead image, clean links', async () => {
    const { view } = await load();
    const items = view.groups.flatMap((g) => g.items);
    const tides = items.find((i) => i.url === TRACKED);
    assert.ok(tides !== undefined);
    assert.equal(tides.title, 'How tides are made');
    assert.equal(tides.siteName, 'Sea Notes');
    assert.equal(tides.readingTime, '6 min read');
    assert.equal(tides.href, CLEAN);
    assert.ok(tides.excerpt.length <= 301 && tides.excerpt.endsWith('…'), tides.excerpt);
    assert.ok(LONG.startsWith(tides.excerpt.slice(0, -1)), 'cut on a word, not mid-word');
    assert.deepEqual(tides.image, {
      url: ARTICLE.image_url,
      width: 1200,
      height: 800,
      alt: 'Low tide at dawn',
    });
    assert.match(tides.readHref ?? '', new RegExp(`^${BASE}/items/${tidesPage}\\?token=[\\w-]{43}$`));
    const named = items.find((i) => i.url === NAMED);
    const feed = items.find((i) => i.url === FEED_ITEM);
    assert.ok(named !== undefined && feed !== undefined);
    assert.equal(named.title, 'My own name for it', 'a title the person gave wins');
    assert.equal(named.readHref, null, 'no text: no reading link');
    assert.equal(feed.excerpt, 'The feed’s own summary.', 'without a page, the feed’s summary');
    assert.deepEqual(feed.image, {
      url: 'https://feed.example/pic.png',
      width: null,
      height: null,
      alt: '',
    });
    assert.equal(feed.href, 'https://feed.example/post');
  });

  test('the HTML email shows them, the thumbnail at a fixed size with width, height and alt', async () => {
    const html = renderEmailHtml((await load()).view);
    assert.match(
      html,
      new RegExp(`<a class="td-link td-title" href="${escape(CLEAN)}"[^>]*>How tides are made</a>`),
    );
    assert.match(html, /Sea Notes · 6 min read/);
    assert.match(html, /Waves roll in from far away/);
    assert.match(
      html,
      /<td class="td-thumb" valign="top" width="112" style="width:112px;[^"]*"><a href="https:\/\/sea\.example\/tides\?id=7"[^>]*><img src="https:\/\/img\.sea\.example\/tides\.jpg" width="96" height="64" alt="Low tide at dawn"/,
    );
    assert.match(html, /<img src="https:\/\/feed\.example\/pic\.png" width="96" height="72" alt=""/);
    assert.match(
      html,
      new RegExp(`href="${BASE}/items/${tidesPage}\\?token=[\\w-]{43}"[^>]*>Read it here</a>`),
    );
    assert.match(html, />My own name for it</);
    assert.doesNotMatch(html, /utm_source|fbclid|utm_medium/);
  });

  test('hostile page fields are text in the email: no script, handler, frame or javascript: image', async () => {
    const { view } = await load();
    for (const out of [renderEmailHtml(view), renderWebPage(view)]) {
      assert.doesNotMatch(out, /<script|<iframe|<img src=x|<b onclick|src="javascript:/i);
      assert.match(out, /&lt;script&gt;alert\(&quot;title&quot;\)&lt;\/script&gt;Hostile/);
      assert.match(out, /&lt;iframe src=&quot;javascript:alert\(2\)&quot;&gt;/);
    }
  });

  test('the plain-text email: title, site · N min read, description, the clean link', async () => {
    const text = renderText((await load()).view);
    assert.match(
      text,
      new RegExp(
        `\\* How tides are made\\n  Sea Notes · 6 min read\\n  Waves roll in[^*]*?\\n  ${escape(CLEAN)}\\n  Read it here: ${BASE}/items/${tidesPage}\\?token=`,
      ),
    );
    assert.doesNotMatch(text, /utm_source|fbclid/);
  });

  test('the web page and the Atom entry carry the same items, thumbnails and clean links', async () => {
    const loaded = await load();
    const page = renderWebPage(loaded.view);
    assert.match(
      page,
      /<img src="https:\/\/img\.sea\.example\/tides\.jpg" width="96" height="64" alt="Low tide at dawn"/,
    );
    assert.match(page, /Sea Notes · 6 min read/);
    const atom = atomOf(loaded);
    assert.match(
      atom,
      /<img src="https:\/\/img\.sea\.example\/tides\.jpg" width="96" height="64" alt="Low tide at dawn"/,
    );
    assert.match(atom, /Sea Notes · 6 min read/);
    assert.match(atom, new RegExp(`href="${escape(CLEAN)}"`));
    assert.doesNotMatch(atom, /utm_source|fbclid/);
  });

  test('--images false shows no image anywhere; --clean-links false keeps the parameters', async () => {
    await changeAccountSettings(
      ctx.store(),
      accountId,
      parseSettings({ images: 'false', cleanLinks: 'false' }),
    );
    const loaded = await load();
    const atom = atomOf(loaded);
    for (const out of [renderEmailHtml(loaded.view), renderWebPage(loaded.view), atom]) {
      assert.doesNotMatch(out, /<img/);
      assert.match(
        out,
        /href="https:\/\/sea\.example\/tides\?utm_source=newsletter&amp;id=7&amp;fbclid=abc"/,
      );
    }
    assert.match(renderText(loaded.view), new RegExp(`\\n  ${escape(TRACKED)}\\n`));
    await changeAccountSettings(
      ctx.store(),
      accountId,
      parseSettings({ images: 'true', cleanLinks: 'true' }),
    );
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
