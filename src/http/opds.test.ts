/**
 * Issue 35, point 4: the OPDS catalogue, driven over real HTTP as e-reader apps drive it, on both
 * engines. KOReader's OPDS browser (plugins/opds.koplugin: LuaSocket's `http.request` with `user` and
 * `password`, so a preemptive `Authorization: Basic`, `Accept-Encoding: identity`, no Accept header;
 * it lists a feed, follows `rel="next"` at the end of a list and downloads an acquisition link), and
 * a client that asks for Atom (Foliate, Thorium: `Accept: application/atom+xml…`) opened with the
 * private `?token=` link. Every feed is parsed as strict XML and read as Atom is (feedparser's rules:
 * the Atom namespace, an id, a title and updated per entry, links by rel and type).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { FastifyInstance } from 'fastify';
import { unzipSync } from 'fflate';
import { operatorSetPassword } from '../accounts/passwords.js';
import { newOpdsLink } from '../accounts/opds.js';
import { buildDigestNow } from '../digest/build.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { addReadingItems } from '../test/readingFixtures.js';
import { InvalidKeyLimiter } from './invalidKeyLimiter.js';
import { OPDS_PAGE_SIZE } from './opds.js';
import { buildServer } from './server.js';

const PASSWORD = 'correct horse battery staple';
const ATOM_NS = 'http://www.w3.org/2005/Atom';
const ACQUISITION = 'http://opds-spec.org/acquisition';
const NAVIGATION = 'application/atom+xml;profile=opds-catalog;kind=navigation';
const ACQUISITION_FEED = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
const skip = epubcheckSkipReason();

interface Link {
  rel: string;
  type: string;
  href: string;
  title?: string;
}
interface Entry {
  id: string;
  title: string;
  updated: string;
  links: Link[];
}
interface Feed {
  id: string;
  links: Link[];
  entries: Entry[];
}

const text = (v: unknown): string =>
  typeof v === 'string' ? v : ((v as { '#text'?: string } | undefined)?.['#text'] ?? '');
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const linksOf = (v: unknown): Link[] =>
  asArray(v as Record<string, string> | Record<string, string>[] | undefined).map((l) => ({
    rel: l['@_rel'] ?? 'alternate',
    type: l['@_type'] ?? '',
    href: l['@_href'] ?? '',
  }));

/** A feed as a strict XML parser and an Atom reader see it; throws on what either would refuse. */
function parseAtom(xml: string): Feed {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- its successor is not a dependency; this one still checks well-formedness
  const valid = XMLValidator.validate(xml);
  assert.equal(valid, true, `well-formed XML: ${JSON.stringify(valid)}`);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(xml) as {
    feed?: Record<string, unknown>;
  };
  const feed = doc.feed;
  assert.ok(feed !== undefined, 'an Atom <feed> root');
  assert.equal(feed['@_xmlns'], ATOM_NS);
  const entries = asArray(feed.entry as Record<string, unknown>[] | Record<string, unknown> | undefined).map(
    (e): Entry => ({
      id: text(e.id),
      title: text(e.title),
      updated: text(e.updated),
      links: linksOf(e.link),
    }),
  );
  for (const e of entries) {
    assert.ok(e.id !== '' && e.title !== '' && !Number.isNaN(Date.parse(e.updated)), JSON.stringify(e));
  }
  assert.ok(text(feed.id) !== '' && !Number.isNaN(Date.parse(text(feed.updated))));
  return { id: text(feed.id), links: linksOf(feed.link), entries };
}

await describeEachEngine('the OPDS catalogue', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let clockMs = Date.parse('2026-11-23T08:00:00.000Z');
  let account: { id: Awaited<ReturnType<typeof newAccount>>['id']; name: string };
  let digestId = 0;
  let unreadIds: number[] = [];
  let archivedId = 0;

  before(async () => {
    const store = ctx.store();
    const config = { trustProxy: false as const, queueLimit: 10_000, baseUrl: 'http://127.0.0.1:8080' };
    app = buildServer({
      config,
      store,
      logger: silentLogger,
      signInLimiter: new InvalidKeyLimiter(10, 15 * 60_000, 100_000, () => clockMs),
      now: () => new Date(clockMs),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    config.baseUrl = base;
    const { id } = await newAccount(store);
    const row = await store.db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    account = { id, name: row.name };
    await operatorSetPassword(store, id, PASSWORD, new Date(clockMs));
    await saveUrl(store, id, 'https://example.org/story', 'A story');
    const built = await buildDigestNow(testDigestDeps(store), id);
    assert.equal(built.status, 'built');
    digestId = built.digestId;
    // Thirty unread entries (two pages) saved a minute apart, and one archived.
    const items = Array.from({ length: 30 }, (_, i) => ({
      url: `https://example.org/read/${i}`,
      title: `Entry ${String(i).padStart(2, '0')} <&>`,
      savedAt: new Date(Date.parse('2026-10-01T00:00:00.000Z') + i * 60_000).toISOString(),
      tags: i === 0 ? ['long', 'sea'] : [],
    }));
    unreadIds = await addReadingItems(store, id, items);
    [archivedId] = (await addReadingItems(store, id, [
      {
        url: 'https://example.org/done',
        title: 'Done',
        savedAt: '2026-10-05T00:00:00.000Z',
        state: 'archived',
      },
    ])) as [number];
  });
  after(() => app.close());

  /** KOReader's request: LuaSocket with user and password, identity encoding, no Accept. */
  const koreader = (url: string, user = account.name, password = PASSWORD) =>
    fetch(url, {
      headers: {
        authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
        'accept-encoding': 'identity',
        'user-agent': 'LuaSocket 3.0-rc1',
      },
    });
  /** A client that asks for Atom and was given the private link (Foliate, Thorium). */
  const atomClient = (url: string) =>
    fetch(url, {
      headers: {
        accept:
          'application/atom+xml;profile=opds-catalog, application/atom+xml, application/xml;q=0.9, */*;q=0.8',
      },
    });

  test('KOReader signs in with Basic, opens both lists, pages the reading list by rel="next", downloads EPUBs', async () => {
    const root = await koreader(`${base}/opds`);
    assert.equal(root.status, 200);
    assert.equal(root.headers.get('content-type'), `${NAVIGATION};charset=utf-8`);
    const nav = parseAtom(await root.text());
    const sections = new Map(nav.entries.map((e) => [e.title, e.links.find((l) => l.rel === 'subsection')]));
    assert.deepEqual([...sections.keys()], ['Digests', 'Reading list']);
    for (const l of sections.values()) assert.equal(l?.type, ACQUISITION_FEED);

    // The reading list: newest saved first, OPDS_PAGE_SIZE a page, followed by rel="next" to its end.
    let next: string | undefined = sections.get('Reading list')?.href;
    const titles: string[] = [];
    const downloads: string[] = [];
    let pages = 0;
    while (next !== undefined) {
      const res = await koreader(next);
      assert.equal(res.status, 200, next);
      assert.equal(res.headers.get('content-type'), `${ACQUISITION_FEED};charset=utf-8`);
      const feed = parseAtom(await res.text());
      pages++;
      assert.ok(feed.entries.length <= OPDS_PAGE_SIZE);
      for (const e of feed.entries) {
        titles.push(e.title);
        const acq = e.links.filter((l) => l.rel === ACQUISITION);
        assert.deepEqual(
          acq.map((l) => l.type),
          ['application/epub+zip'],
          e.title,
        );
        downloads.push(acq[0]?.href ?? '');
      }
      next = feed.links.find((l) => l.rel === 'next')?.href;
    }
    assert.equal(pages, 2);
    assert.equal(titles.length, 30, 'every unread entry, the archived one not');
    assert.deepEqual(titles.slice(0, 2), ['Entry 29 <&>', 'Entry 28 <&>']);
    assert.ok(!titles.includes('Done'));
    assert.ok(!downloads.some((d) => d.endsWith(`/${archivedId}.epub`)));

    const epub = await koreader(downloads.at(-1) ?? '');
    assert.equal(epub.status, 200);
    assert.equal(epub.headers.get('content-type'), 'application/epub+zip');
    assert.match(
      epub.headers.get('content-disposition') ?? '',
      /^attachment; filename="entry-00-\d+\.epub"$/,
    );
    const bytes = new Uint8Array(await epub.arrayBuffer());
    assert.ok(Object.keys(unzipSync(bytes)).includes('EPUB/package.opf'));
    if (skip === undefined) {
      const report = await epubcheck(bytes);
      assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
    }

    // The digests: each digest's EPUB.
    const digests = parseAtom(await (await koreader(sections.get('Digests')?.href ?? '')).text());
    assert.equal(digests.entries.length, 1);
    const acq = digests.entries[0]?.links.find((l) => l.rel === ACQUISITION);
    assert.equal(acq?.type, 'application/epub+zip');
    assert.equal(acq.href, `${base}/opds/digests/${digestId}.epub`);
    const file = await koreader(acq.href);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'application/epub+zip');
    assert.match(file.headers.get('content-disposition') ?? '', /filename="tidings-\d{4}-\d\d-\d\d\.epub"/);
  });

  test('the private link: every link of its feeds carries it; a new link ends the old one', async () => {
    const url = await newOpdsLink(ctx.store(), account.id, base);
    assert.ok(url !== null);
    assert.match(url, /\/opds\?token=[\w-]{43}$/);
    const token = new URL(url).searchParams.get('token') ?? '';
    const nav = parseAtom(await (await atomClient(url)).text());
    const reading = nav.entries.find((e) => e.title === 'Reading list')?.links[0]?.href ?? '';
    assert.equal(new URL(reading).searchParams.get('token'), token);
    const list = parseAtom(await (await atomClient(reading)).text());
    for (const l of [...list.links, ...list.entries.flatMap((e) => e.links)]) {
      if (l.href.startsWith(base)) assert.equal(new URL(l.href).searchParams.get('token'), token, l.href);
    }
    const download = list.entries[0]?.links.find((l) => l.rel === ACQUISITION)?.href ?? '';
    assert.equal((await atomClient(download)).status, 200);

    const fresh = await newOpdsLink(ctx.store(), account.id, base);
    assert.ok(fresh !== null && fresh !== url);
    const old = await atomClient(url);
    assert.equal(old.status, 401);
    assert.deepEqual(Object.keys((await old.json()) as object).sort(), ['code', 'message']);
    assert.equal((await atomClient(fresh)).status, 200);
  });

  test('refusals: no credentials, a wrong password, another account, a bad page; all JSON', async () => {
    const none = await fetch(`${base}/opds`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm="Tidings"/);
    assert.equal(((await none.json()) as { code: number }).code, 40101);
    const wrong = await koreader(`${base}/opds`, account.name, 'not the password');
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { code: number }).code, 40102);

    const other = await newAccount(ctx.store());
    const otherName = (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', other.id)
        .executeTakeFirstOrThrow()
    ).name;
    await operatorSetPassword(ctx.store(), other.id, PASSWORD, new Date(clockMs));
    const theirs = await koreader(`${base}/opds/reading/${unreadIds[0] ?? 0}.epub`, otherName);
    assert.equal(theirs.status, 404);
    assert.equal((await koreader(`${base}/opds/digests/${digestId}.epub`, otherName)).status, 404);
    const empty = parseAtom(await (await koreader(`${base}/opds/reading`, otherName)).text());
    assert.equal(empty.entries.length, 0);

    for (const page of ['0', '-1', 'x', '10001', '1e3']) {
      const res = await koreader(`${base}/opds/reading?page=${page}`);
      assert.equal(res.status, 400, page);
      assert.equal(((await res.json()) as { code: number }).code, 40000);
    }
    assert.equal((await koreader(`${base}/opds/reading/abc.epub`)).status, 404);
    const past = parseAtom(await (await koreader(`${base}/opds/reading?page=9`)).text());
    assert.equal(past.entries.length, 0);
    assert.ok(past.links.some((l) => l.rel === 'previous'));
  });

  test('wrong passwords count as web sign-ins: the tenth closes the sign-in page too, until the window ends', async () => {
    // Counted already from this address: the replaced link's token and one wrong password; eight left.
    // Each with another unknown name: the per-account hold (accounts/passwordHolds.ts) stays out of it.
    for (let i = 0; i < 8; i++) {
      const res = await koreader(`${base}/opds`, `nobody ${i}`, 'a guess');
      assert.equal(res.status, 401, `attempt ${i}`);
    }
    const held = await koreader(`${base}/opds`);
    assert.equal(held.status, 429, 'even the right password waits');
    assert.ok(Number(held.headers.get('retry-after')) > 0);
    const page = await fetch(`${base}/sign-in/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ identifier: account.name, password: PASSWORD }).toString(),
    });
    assert.equal(page.status, 429, 'the web sign-in is closed to this address as well');
    clockMs += 16 * 60_000;
    assert.equal((await koreader(`${base}/opds`)).status, 200);
  });

  test('Basic verified a moment ago is remembered, yet a changed or removed password is refused at once', async () => {
    const reader = await newAccount(ctx.store());
    const name = (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', reader.id)
        .executeTakeFirstOrThrow()
    ).name;
    const first = 'the first e-reader password';
    const second = 'the second e-reader password';
    await operatorSetPassword(ctx.store(), reader.id, first, new Date(clockMs));
    for (let i = 0; i < 3; i++) assert.equal((await koreader(`${base}/opds`, name, first)).status, 200);
    // Changed as the CLI changes it (another process): the old password's next request is refused.
    await operatorSetPassword(ctx.store(), reader.id, second, new Date(clockMs));
    assert.equal((await koreader(`${base}/opds`, name, first)).status, 401, 'the old password, at once');
    assert.equal((await koreader(`${base}/opds`, name, second)).status, 200);
    assert.equal((await koreader(`${base}/opds/reading`, name, second)).status, 200);
    await operatorSetPassword(ctx.store(), reader.id, null, new Date(clockMs));
    assert.equal((await koreader(`${base}/opds`, name, second)).status, 401, 'no password any more');
  });
});
