/**
 * bench:digest-quality's sites: one loopback HTTP server answering every scenario feed (RSS 2.0 or Atom) as
 * it stands at the simulated time: its newest items published by then, as many as its window holds. It
 * answers conditional requests (ETag, Last-Modified) as most sites do, and notes when each item was first
 * served: when it reached Tidings (the items a digest could hold are those that had arrived by its build).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScenarioFeed, ScenarioItem } from './digest-quality-scenario.js';

const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function rss(feed: ScenarioFeed, site: string, items: readonly ScenarioItem[]): string {
  const entries = items.map(
    (i) =>
      `<item><title>${escapeXml(i.title)}</title><link>${escapeXml(i.url)}</link>` +
      `<guid isPermaLink="false">${i.id}</guid><description>${escapeXml(i.summary)}</description>` +
      `<pubDate>${new Date(i.published).toUTCString()}</pubDate></item>`,
  );
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>${escapeXml(feed.title)}</title>` +
    `<link>${escapeXml(site)}</link><description>${escapeXml(feed.title)}</description>${entries.join('')}` +
    `</channel></rss>`
  );
}

function atom(feed: ScenarioFeed, site: string, items: readonly ScenarioItem[], updated: number): string {
  const entries = items.map((i) => {
    const at = new Date(i.published).toISOString();
    return (
      `<entry><title>${escapeXml(i.title)}</title><link rel="alternate" href="${escapeXml(i.url)}"/>` +
      `<id>urn:bench:${i.id}</id><published>${at}</published><updated>${at}</updated>` +
      `<summary>${escapeXml(i.summary)}</summary></entry>`
    );
  });
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">` +
    `<title>${escapeXml(feed.title)}</title><link rel="alternate" href="${escapeXml(site)}"/>` +
    `<id>urn:bench:feed:${feed.index}</id><updated>${new Date(updated).toISOString()}</updated>` +
    `${entries.join('')}</feed>`
  );
}

export class ScenarioSites {
  /** Item id → the simulated time it was first served. */
  readonly arrived = new Map<string, number>();
  /** Documents served (200) and conditional requests answered 304. */
  served = 0;
  notModified = 0;
  private readonly byPath: Map<string, ScenarioFeed>;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    feeds: readonly ScenarioFeed[],
    private readonly now: () => number,
  ) {
    this.byPath = new Map(feeds.map((f) => [f.path, f]));
  }

  static async start(feeds: readonly ScenarioFeed[], now: () => number): Promise<ScenarioSites> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const sites = new ScenarioSites(server, `http://127.0.0.1:${port}`, feeds, now);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      sites.answer(req, res);
    });
    return sites;
  }

  url(feed: ScenarioFeed): string {
    return `${this.origin}${feed.path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const feed = this.byPath.get(req.url ?? '');
    if (feed === undefined) {
      res.writeHead(404).end();
      return;
    }
    const t = this.now();
    // Oldest first: the last `window` published by now, listed newest first.
    let end = feed.items.length;
    while (end > 0 && (feed.items[end - 1]?.published ?? 0) > t) end--;
    const items = feed.items.slice(Math.max(0, end - feed.window), end).reverse();
    const newest = items[0]?.published ?? 0;
    const etag = `"${createHash('sha256')
      .update(`${feed.index}:${items.map((i) => i.id).join(',')}`)
      .digest('hex')
      .slice(0, 16)}"`;
    const lastModified = new Date(newest).toUTCString();
    if (req.headers['if-none-match'] === etag) {
      this.notModified++;
      res.writeHead(304, { etag, 'last-modified': lastModified }).end();
      return;
    }
    for (const i of items) if (!this.arrived.has(i.id)) this.arrived.set(i.id, t);
    this.served++;
    const site = `https://www.${feed.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example/`;
    const body = feed.format === 'rss' ? rss(feed, site, items) : atom(feed, site, items, newest);
    res.writeHead(200, {
      'content-type': `application/${feed.format === 'rss' ? 'rss' : 'atom'}+xml; charset=utf-8`,
      etag,
      'last-modified': lastModified,
    });
    res.end(body);
  }
}
