import type { Kysely } from 'kysely';

/**
 * The digest that chooses (issue 24).
 *
 * - subscriptions.per_digest: how many of the feed's entries a digest shows; null: the default
 *   (digest/choose/quota.ts), -1: all of them, 0: only the "+N more from" line.
 * - subscriptions.priority: 'high' (placed first), 'normal', or 'low' (only counted unless there is room).
 * - subscriptions.muted_until: "Mute for a week": until then the feed's items are only counted.
 * - digest_items.section: 'saved', 'top' (a story two or more feeds carry) or 'feed'; null for items of
 *   digests built before this, whose section is their source.
 * - digest_items.shown: 1 when the email shows the item (an entry, or a source on an entry's "Also in:"
 *   line); 0 when it is only counted in its feed's "+N more from" line. Items of older digests were shown.
 * - digest_items.story_of: for another source of a story, the position of the story's entry; null for an
 *   entry.
 * - digest_items.seen_in: the earlier digest that delivered the story, when the item is not new; else null.
 * - digests.shown_count: the entries the email shows; null for digests built before this (all were shown).
 * - digest_action_tokens: the private links of an email's actions (keep for tomorrow, fewer or more from a
 *   feed, mute it for a week), one token per email, only its SHA-256 kept, as unsubscribe_tokens.
 *
 * Nothing is rewritten: the next build takes every waiting feed item and collapses what is old or past a
 * feed's share by the rules above, so an upgraded account's backlog becomes one calm digest, not a flood.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('per_digest', 'integer').execute();
  await db.schema
    .alterTable('subscriptions')
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo('normal'))
    .execute();
  await db.schema.alterTable('subscriptions').addColumn('muted_until', 'text').execute();
  await db.schema.alterTable('digest_items').addColumn('section', 'text').execute();
  await db.schema
    .alterTable('digest_items')
    .addColumn('shown', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('digest_items').addColumn('story_of', 'integer').execute();
  await db.schema.alterTable('digest_items').addColumn('seen_in', 'integer').execute();
  await db.schema.alterTable('digests').addColumn('shown_count', 'integer').execute();
  await db.schema
    .createTable('digest_action_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('digest_id', 'integer', (c) => c.notNull().references('digests.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('digest_action_tokens_account_idx')
    .on('digest_action_tokens')
    .columns(['account_id', 'created_at'])
    .execute();
}
