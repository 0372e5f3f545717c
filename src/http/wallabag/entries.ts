import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type EntryFilter,
  accountTags,
  editEntry,
  entriesExist,
  entryOf,
  listEntries,
  removeEntry,
  removeEntryTag,
  saveEntry,
} from '../../accounts/readingEntries.js';
import { cleanTags } from '../../lib/readingTags.js';
import { flag, readWallabagBody, tagsParam } from './body.js';
import { entryJson, tagJson } from './entryJson.js';
import { WallabagError } from './errors.js';
import { sendExport } from './export.js';
import type { Authorise, WallabagDeps } from './index.js';

/*
 * wallabag's entry paths over the reading list (issue 35, point 3): the list in wallabag's pages, one
 * entry, a save, a change, a delete, tags, exists and exports. accounts/readingEntries.ts does the work.
 */

/** The largest page a client gets, whatever perPage it asks for. */
export const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 30;
/** URLs or hashes one exists.json asks about. */
const MAX_EXISTS = 100;

type Query = Record<string, string | string[] | undefined>;

const one = (q: Query, name: string): string | undefined => {
  const v = q[name];
  return Array.isArray(v) ? v[0] : v;
};
const many = (q: Query, name: string): string[] => {
  const v = q[name] ?? q[`${name}[]`];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new WallabagError(400, `${name} must be a whole number from 1`);
  }
  return Number(value);
}

/** ":entry" as "123.json" (or "123"): the entry's number; 404 for anything else. */
function entryId(param: string, suffix = '.json'): number {
  const raw = suffix !== '' && param.endsWith(suffix) ? param.slice(0, -suffix.length) : param;
  if (!/^\d{1,15}$/.test(raw)) throw new WallabagError(404, 'Entry not found');
  return Number(raw);
}

export function registerEntries(scope: FastifyInstance, deps: WallabagDeps & { authorise: Authorise }): void {
  const { store, authorise } = deps;
  const base = deps.baseUrl.replace(/\/+$/, '');
  const bodyOf = (request: FastifyRequest) => readWallabagBody(request.headers['content-type'], request.body);

  scope.get('/api/entries.json', async (request, reply) => {
    const { accountId } = await authorise(request);
    const q = request.query as Query;
    const archive = flag(one(q, 'archive'));
    const starred = flag(one(q, 'starred'));
    const sort = (one(q, 'sort') ?? 'created').toLowerCase();
    const order = (one(q, 'order') ?? 'desc').toLowerCase();
    const detail = (one(q, 'detail') ?? 'full').toLowerCase();
    if (sort !== 'created' && sort !== 'updated' && sort !== 'archived') {
      throw new WallabagError(400, 'sort is created, updated or archived');
    }
    if (order !== 'asc' && order !== 'desc') throw new WallabagError(400, 'order is asc or desc');
    if (detail !== 'full' && detail !== 'metadata')
      throw new WallabagError(400, 'detail is full or metadata');
    const page = positiveInt(one(q, 'page'), 'page', 1);
    const limit = Math.min(positiveInt(one(q, 'perPage'), 'perPage', DEFAULT_PER_PAGE), MAX_PER_PAGE);
    const sinceText = one(q, 'since');
    if (sinceText !== undefined && sinceText !== '' && !/^\d{1,12}$/.test(sinceText)) {
      throw new WallabagError(400, 'since is a Unix time in seconds');
    }
    const tags = cleanTags(tagsParam(one(q, 'tags')) ?? []);
    const domain = one(q, 'domain_name')?.trim().toLowerCase();
    const filter: EntryFilter = {
      ...(archive === undefined ? {} : { state: archive ? 'archived' : 'unread' }),
      ...(starred === undefined ? {} : { starred }),
      ...(tags.length === 0 ? {} : { tags }),
      ...(sinceText === undefined || sinceText === '' || sinceText === '0'
        ? {}
        : { since: new Date(Number(sinceText) * 1000).toISOString() }),
      ...(domain === undefined || domain === '' ? {} : { domain: domain.slice(0, 255) }),
    };
    const { entries, total } = await listEntries(store, accountId, filter, {
      sort,
      order,
      limit,
      offset: (page - 1) * limit,
      content: detail === 'full',
    });
    const pages = Math.max(1, Math.ceil(total / limit));
    if (page > pages) throw new WallabagError(404, `Page "${page}" does not exist: there are ${pages}`);
    const link = (p: number): { href: string } => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(q))
        if (typeof v === 'string' && k !== 'page' && k !== 'access_token') params.set(k, v);
      params.set('page', String(p));
      params.set('perPage', String(limit));
      return { href: `${base}/api/entries?${params.toString()}` };
    };
    return reply.header('cache-control', 'no-store').send({
      page,
      limit,
      pages,
      total,
      _links: {
        self: link(page),
        first: link(1),
        last: link(pages),
        ...(page < pages ? { next: link(page + 1) } : {}),
        ...(page > 1 ? { previous: link(page - 1) } : {}),
      },
      _embedded: { items: entries.map((e) => entryJson(e, detail === 'full')) },
    });
  });

  scope.post('/api/entries.json', async (request, reply) => {
    const { accountId } = await authorise(request);
    const fields = bodyOf(request);
    const title = fields.get('title');
    const tags = tagsParam(fields.get('tags'));
    const archived = flag(fields.get('archive'));
    const starred = flag(fields.get('starred'));
    const entry = await saveEntry(
      store,
      accountId,
      {
        url: fields.get('url'),
        ...(title === undefined || title.trim() === '' ? {} : { title }),
        ...(tags === undefined ? {} : { addTags: tags }),
        ...(archived === undefined ? {} : { archived }),
        ...(starred === undefined ? {} : { starred }),
      },
      { queueLimit: deps.queueLimit, metrics: deps.metrics },
      deps.now(),
    );
    return reply.send(entryJson(entry, true));
  });

  scope.get('/api/entries/exists.json', async (request, reply) => {
    const { accountId } = await authorise(request);
    const q = request.query as Query;
    const url = one(q, 'url');
    const hashed = one(q, 'hashed_url');
    const urls = [...(url === undefined || url === '' ? [] : [url]), ...many(q, 'urls')].slice(0, MAX_EXISTS);
    const hashes = [
      ...(hashed === undefined || hashed === '' ? [] : [hashed]),
      ...many(q, 'hashed_urls'),
    ].slice(0, MAX_EXISTS);
    if (urls.length === 0 && hashes.length === 0) throw new WallabagError(403, 'URL is empty?');
    const withId = flag(one(q, 'return_id')) === true;
    const found = await entriesExist(store, accountId, urls, hashes);
    const answer = (id: number | null | undefined): number | boolean | null =>
      withId ? (id ?? null) : id != null;
    if ((url !== undefined && url !== '') || (hashed !== undefined && hashed !== '')) {
      const id = url !== undefined && url !== '' ? found.urls.get(url) : found.hashes.get(hashed ?? '');
      return reply.send({ exists: answer(id) });
    }
    const all: Record<string, number | boolean | null> = {};
    for (const [k, id] of found.urls) all[k] = answer(id);
    for (const [k, id] of found.hashes) all[k] = answer(id);
    return reply.send(all);
  });

  scope.get('/api/entries/:entry', async (request, reply) => {
    const { accountId } = await authorise(request);
    const id = entryId((request.params as { entry: string }).entry);
    return reply.send(entryJson(await entryOf(store, accountId, id), true));
  });

  scope.patch('/api/entries/:entry', async (request, reply) => {
    const { accountId } = await authorise(request);
    const id = entryId((request.params as { entry: string }).entry);
    const fields = bodyOf(request);
    const title = fields.get('title');
    const tags = tagsParam(fields.get('tags'));
    const archived = flag(fields.get('archive'));
    const starred = flag(fields.get('starred'));
    const entry = await editEntry(
      store,
      accountId,
      id,
      {
        ...(title === undefined ? {} : { title }),
        ...(tags === undefined ? {} : { addTags: tags }),
        ...(archived === undefined ? {} : { archived }),
        ...(starred === undefined ? {} : { starred }),
      },
      deps.now(),
    );
    return reply.send(entryJson(entry, true));
  });

  scope.delete('/api/entries/:entry', async (request, reply) => {
    const { accountId } = await authorise(request);
    const id = entryId((request.params as { entry: string }).entry);
    const entry = await removeEntry(store, accountId, id);
    if (one(request.query as Query, 'expect') === 'id') return reply.send({ id });
    return reply.send(entryJson(entry, true));
  });

  scope.get('/api/entries/:entry/:what', async (request, reply) => {
    const { accountId } = await authorise(request);
    const params = request.params as { entry: string; what: string };
    const id = entryId(params.entry, '');
    if (params.what === 'tags.json') {
      return reply.send((await entryOf(store, accountId, id)).tags.map(tagJson));
    }
    const format = /^export\.(epub|html|txt)$/.exec(params.what)?.[1];
    if (format === undefined) throw new WallabagError(404, 'No route found');
    return sendExport(reply, store, accountId, id, format);
  });

  scope.post('/api/entries/:entry/:what', async (request, reply) => {
    const { accountId } = await authorise(request);
    const params = request.params as { entry: string; what: string };
    if (params.what !== 'tags.json') throw new WallabagError(404, 'No route found');
    const id = entryId(params.entry, '');
    const tags = tagsParam(bodyOf(request).get('tags')) ?? [];
    return reply.send(entryJson(await editEntry(store, accountId, id, { addTags: tags }, deps.now()), true));
  });

  scope.delete('/api/entries/:entry/tags/:tag', async (request, reply) => {
    const { accountId } = await authorise(request);
    const params = request.params as { entry: string; tag: string };
    const id = entryId(params.entry, '');
    const tagId = entryId(params.tag);
    return reply.send(entryJson(await removeEntryTag(store, accountId, id, tagId, deps.now()), true));
  });

  scope.get('/api/tags.json', async (request, reply) => {
    const { accountId } = await authorise(request);
    return reply.send((await accountTags(store, accountId)).map(tagJson));
  });
}
