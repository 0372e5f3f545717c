import { createHash } from 'node:crypto';

/*
 * Test clients that send the wallabag API exactly what the real apps send (their public source, read for
 * issue 35): KOReader's wallabag plugin (plugins/wallabag.koplugin/main.lua), the wallabag Android app's
 * API library (di72nn/wallabag-api-wrapper: Retrofit, form bodies for tokens, tags and changes) and the
 * Wallabagger extension (wallabagger/js/wallabag-api.js with fetch-api.js: JSON everywhere, a
 * Content-Type: application/json even on a GET or DELETE without a body).
 */

export interface Credentials {
  server: string;
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
}

export interface Answer {
  status: number;
  json: unknown;
  text: string;
  headers: Headers;
}

async function call(url: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, text, headers: res.headers };
}

const obj = (a: Answer): Record<string, unknown> => a.json as Record<string, unknown>;

/** KOReader's plugin: JSON bodies with Content-Length, Accept "application/json, *\/*", bearer header. */
export class KoreaderClient {
  accessToken = '';
  constructor(readonly c: Credentials) {}

  private jsonHeaders(body: string, auth: boolean): Record<string, string> {
    return {
      'Content-type': 'application/json',
      Accept: 'application/json, */*',
      'Content-Length': String(Buffer.byteLength(body)),
      ...(auth ? { Authorization: `Bearer ${this.accessToken}` } : {}),
    };
  }

  async getBearerToken(): Promise<Answer> {
    const body = JSON.stringify({
      grant_type: 'password',
      client_id: this.c.clientId,
      client_secret: this.c.clientSecret,
      username: this.c.username,
      password: this.c.password,
    });
    const a = await call(`${this.c.server}/oauth/v2/token`, {
      method: 'POST',
      headers: this.jsonHeaders(body, false),
      body,
    });
    if (a.status === 200) this.accessToken = String(obj(a).access_token);
    return a;
  }

  /** getArticleList: pages of unread entries until `perSync` are listed or a page is a 404. */
  async getArticleList(perSync: number, filterTag = ''): Promise<Record<string, unknown>[]> {
    const list: Record<string, unknown>[] = [];
    for (let page = 1; list.length < perSync; page++) {
      const filtering = filterTag === '' ? '' : `&tags=${filterTag}`;
      const a = await this.get(`/api/entries.json?archive=0&page=${page}&perPage=${perSync}${filtering}`);
      if (a.status === 404) break;
      if (a.status !== 200) throw new Error(`list failed: ${a.status} ${a.text}`);
      const items = (obj(a)._embedded as { items: Record<string, unknown>[] }).items;
      for (const item of items) if (list.length < perSync) list.push(item);
    }
    return list;
  }

  get(path: string): Promise<Answer> {
    return call(`${this.c.server}${path}`, { headers: { Authorization: `Bearer ${this.accessToken}` } });
  }

  /** download: the entry's EPUB. */
  async download(id: number): Promise<{ status: number; bytes: Buffer; type: string | null }> {
    const res = await fetch(`${this.c.server}/api/entries/${id}/export.epub`, {
      headers: { Authorization: `Bearer ${this.accessToken}` },
    });
    return {
      status: res.status,
      bytes: Buffer.from(await res.arrayBuffer()),
      type: res.headers.get('content-type'),
    };
  }

  addArticle(url: string, autoTags: string): Promise<Answer> {
    const body = JSON.stringify({ url, tags: autoTags });
    return call(`${this.c.server}/api/entries.json`, {
      method: 'POST',
      headers: this.jsonHeaders(body, true),
      body,
    });
  }

  addTags(id: number, tags: string): Promise<Answer> {
    const body = JSON.stringify({ tags });
    return call(`${this.c.server}/api/entries/${id}/tags.json`, {
      method: 'POST',
      headers: this.jsonHeaders(body, true),
      body,
    });
  }

  /** removeArticle with "Mark as finished instead of deleting": PATCH {archive: 1}; else DELETE. */
  archive(id: number): Promise<Answer> {
    const body = JSON.stringify({ archive: 1 });
    return call(`${this.c.server}/api/entries/${id}.json`, {
      method: 'PATCH',
      headers: this.jsonHeaders(body, true),
      body,
    });
  }

  delete(id: number): Promise<Answer> {
    return call(`${this.c.server}/api/entries/${id}.json`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${this.accessToken}` },
    });
  }
}

const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

/** The wallabag Android app's library: form bodies, query maps, sha1 hashed_url for exists. */
export class AndroidClient {
  accessToken = '';
  refreshToken = '';
  constructor(readonly c: Credentials) {}

  private auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.accessToken}` };
  }

  async token(): Promise<Answer> {
    const a = await call(`${this.c.server}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: form({
        grant_type: 'password',
        client_id: this.c.clientId,
        client_secret: this.c.clientSecret,
        username: this.c.username,
        password: this.c.password,
      }),
    });
    if (a.status === 200) {
      this.accessToken = String(obj(a).access_token);
      this.refreshToken = String(obj(a).refresh_token);
    }
    return a;
  }

  async refresh(): Promise<Answer> {
    const a = await call(`${this.c.server}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: form({
        grant_type: 'refresh_token',
        client_id: this.c.clientId,
        client_secret: this.c.clientSecret,
        refresh_token: this.refreshToken,
      }),
    });
    if (a.status === 200) {
      this.accessToken = String(obj(a).access_token);
      this.refreshToken = String(obj(a).refresh_token);
    }
    return a;
  }

  version(): Promise<Answer> {
    return call(`${this.c.server}/api/version.json`, { headers: this.auth() });
  }

  info(): Promise<Answer> {
    return call(`${this.c.server}/api/info.json`, { headers: this.auth() });
  }

  /** The sync: every entry changed since `since` (Unix seconds), oldest change first, page by page. */
  async sync(since: number, perPage = 30): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const q = new URLSearchParams({
        sort: 'updated',
        order: 'asc',
        page: String(page),
        perPage: String(perPage),
        since: String(since),
        detail: 'full',
      });
      const a = await call(`${this.c.server}/api/entries.json?${q.toString()}`, { headers: this.auth() });
      if (a.status !== 200) throw new Error(`sync failed: ${a.status} ${a.text}`);
      const body = obj(a);
      all.push(...(body._embedded as { items: Record<string, unknown>[] }).items);
      if (Number(body.page) >= Number(body.pages)) return all;
    }
  }

  add(url: string, fields: Record<string, string> = {}): Promise<Answer> {
    return call(`${this.c.server}/api/entries.json`, {
      method: 'POST',
      headers: { ...this.auth(), 'Content-Type': FORM },
      body: form({ url, ...fields }),
    });
  }

  modify(id: number, fields: Record<string, string>): Promise<Answer> {
    return call(`${this.c.server}/api/entries/${id}.json`, {
      method: 'PATCH',
      headers: { ...this.auth(), 'Content-Type': FORM },
      body: form(fields),
    });
  }

  exists(url: string): Promise<Answer> {
    const hashed = createHash('sha1').update(url).digest('hex');
    return call(`${this.c.server}/api/entries/exists.json?hashed_url=${hashed}&return_id=1`, {
      headers: this.auth(),
    });
  }

  deleteWithId(id: number): Promise<Answer> {
    return call(`${this.c.server}/api/entries/${id}.json?expect=id`, {
      method: 'DELETE',
      headers: this.auth(),
    });
  }

  export(id: number, format: 'txt' | 'html'): Promise<Answer> {
    return call(`${this.c.server}/api/entries/${id}/export.${format}`, { headers: this.auth() });
  }
}

/** Wallabagger: fetch with JSON headers on every request, bodies JSON.stringify'd. */
export class WallabaggerClient {
  apiToken = '';
  refreshTokenValue = '';
  constructor(readonly c: Credentials) {}

  private fetchApi(url: string, method: string, token: string, content: unknown): Promise<Answer> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'Content-Type': 'application/json',
    };
    if (token !== '') headers.Authorization = `Bearer ${token}`;
    return call(url, {
      method,
      headers,
      ...(content === '' ? {} : { body: JSON.stringify(content) }),
    });
  }

  checkUrl(): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/version`, 'GET', '', '');
  }

  async passwordToken(): Promise<Answer> {
    const a = await this.fetchApi(`${this.c.server}/oauth/v2/token`, 'POST', '', {
      grant_type: 'password',
      client_id: this.c.clientId,
      client_secret: this.c.clientSecret,
      username: this.c.username,
      password: this.c.password,
    });
    if (a.status === 200) {
      this.apiToken = String(obj(a).access_token);
      this.refreshTokenValue = String(obj(a).refresh_token);
    }
    return a;
  }

  savePage(pageUrl: string, archiveByDefault = false): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries.json`, 'POST', this.apiToken, {
      url: pageUrl,
      archive: archiveByDefault ? 1 : 0,
    });
  }

  entryExists(url: string): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/exists.json?url=${url}`, 'GET', this.apiToken, '');
  }

  saveTags(id: number, taglist: string): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/${id}.json`, 'PATCH', this.apiToken, {
      tags: taglist,
    });
  }

  saveStarred(id: number, starred: boolean): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/${id}.json`, 'PATCH', this.apiToken, { starred });
  }

  saveTitle(id: number, title: string): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/${id}.json`, 'PATCH', this.apiToken, { title });
  }

  getTags(): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/tags.json`, 'GET', this.apiToken, '');
  }

  getArticleTags(id: number): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/${id}/tags.json`, 'GET', this.apiToken, '');
  }

  deleteArticleTag(id: number, tagId: number): Promise<Answer> {
    return this.fetchApi(
      `${this.c.server}/api/entries/${id}/tags/${tagId}.json`,
      'DELETE',
      this.apiToken,
      '',
    );
  }

  deleteArticle(id: number): Promise<Answer> {
    return this.fetchApi(`${this.c.server}/api/entries/${id}.json`, 'DELETE', this.apiToken, '');
  }
}
