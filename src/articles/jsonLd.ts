import type { DomDocument } from './dom.js';

/** What Tidings reads from a page's JSON-LD: the article's own fields, as the page sent them. */
export interface JsonLdArticle {
  headline: string | null;
  description: string | null;
  /** Each author's name, as the page gives them (articles/metadata.ts picks those that are names). */
  authors: string[];
  datePublished: string | null;
}

/** Caps on what is parsed: one script, all scripts together, and nodes looked at. */
const MAX_SCRIPT_CHARS = 512 * 1024;
const MAX_TOTAL_CHARS = 1024 * 1024;
const MAX_NODES = 200;

const ARTICLE_TYPES = new Set([
  'article',
  'newsarticle',
  'blogposting',
  'reportagenewsarticle',
  'analysisnewsarticle',
  'opinionnewsarticle',
  'techarticle',
  'scholarlyarticle',
  'report',
  'liveblogposting',
  'socialmediaposting',
]);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringOf = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function typesOf(node: Json): string[] {
  const t = node['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list.filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase());
}

/** The names of a JSON-LD author: "Ann", {name: "Ann"}, or a list of those (at most 10). */
function authorsOf(value: unknown): string[] {
  const list: unknown[] = Array.isArray(value) ? value.slice(0, 10) : [value];
  return list
    .map((a) => stringOf(a) ?? (isObject(a) ? stringOf(a.name) : null))
    .filter((n): n is string => n !== null && n.trim() !== '' && !/^https?:\/\//i.test(n.trim()));
}

/** The nodes of one parsed script: the value itself, the items of an array, the items of a @graph. */
function nodesOf(value: unknown, into: Json[]): void {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (into.length >= MAX_NODES || !isObject(item)) continue;
    into.push(item);
    const graph = item['@graph'];
    if (Array.isArray(graph)) for (const g of graph) if (isObject(g) && into.length < MAX_NODES) into.push(g);
  }
}

/** Parsed scripts of type application/ld+json, within the caps; malformed ones are passed over. */
export function jsonLdNodes(doc: DomDocument): Json[] {
  const nodes: Json[] = [];
  let budget = MAX_TOTAL_CHARS;
  for (const script of doc.querySelectorAll('script[type]')) {
    const type = script.getAttribute('type')?.trim().toLowerCase() ?? '';
    if (type !== 'application/ld+json') continue;
    const text = script.textContent ?? '';
    if (text.length > MAX_SCRIPT_CHARS || text.length > budget) continue;
    budget -= text.length;
    try {
      nodesOf(JSON.parse(text), nodes);
    } catch {
      // Malformed JSON-LD is common (trailing commas, HTML comments); the page's meta tags still count.
    }
  }
  return nodes;
}

/** The article a page's JSON-LD describes: the first node of an article type, else the first with a headline. */
export function readJsonLd(doc: DomDocument): JsonLdArticle | null {
  const nodes = jsonLdNodes(doc);
  const node =
    nodes.find((n) => typesOf(n).some((t) => ARTICLE_TYPES.has(t))) ??
    nodes.find((n) => typeof n.headline === 'string');
  if (node === undefined) return null;
  return {
    headline: stringOf(node.headline) ?? stringOf(node.name),
    description: stringOf(node.description),
    authors: authorsOf(node.author),
    datePublished: stringOf(node.datePublished),
  };
}
