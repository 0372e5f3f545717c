import type { KyselyPlugin, RootOperationNode } from 'kysely';
import type { Store } from '../store/db.js';

/** Whether a statement's tree is raw SQL (Kysely's sql template) whose text contains `text`. */
const rawContains = (node: RootOperationNode, text: string): boolean =>
  node.kind === 'RawNode' && node.sqlFragments.some((f) => f.includes(text));

/**
 * Counts the raw statements run through store.db (from now on, including transactions begun on it) whose
 * SQL contains `text`, e.g. the calls of a database function; stop() gives store.db back as it was.
 */
export function countStatements(store: Store, text: string): { count: number; stop(): void } {
  const db = store.db;
  const counter = {
    count: 0,
    stop: () => {
      store.db = db;
    },
  };
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      if (rawContains(node, text)) counter.count++;
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  store.db = db.withPlugin(plugin);
  return counter;
}

/**
 * Counts every statement run through store.db from now on (once each, when its result comes back: a
 * subquery built on the same Kysely is not one), transactions begun on it included; stop() gives store.db
 * back as it was.
 */
export function countAllStatements(store: Store): { count: number; stop(): void } {
  const db = store.db;
  const counter = {
    count: 0,
    stop: () => {
      store.db = db;
    },
  };
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: ({ result }) => {
      counter.count++;
      return Promise.resolve(result);
    },
  };
  store.db = db.withPlugin(plugin);
  return counter;
}
