/*
 * How much of a digest one document shows. A digest may hold up to 10,000 items (the `max-items` setting's
 * ceiling); rendered whole that is about 8.6 MB of HTML, and every request for it held the server for
 * about a second at 400-600 MB. With these limits a rendering reads and lays out a bounded number of rows
 * however large its digest, and the web page carries the rest, a page at a time. An item renders to
 * about 0.9 KB of HTML (a title, its links, an excerpt of at most 300 characters), so:
 *
 * - a web page of the digest, 200 items: about 175 KB;
 * - an email, 100 items: about 90 KB of HTML (Gmail clips a message's HTML past 102 KB), plus the text;
 *   the default `max-items` is 100, so a digest of the default size is emailed whole;
 * - an Atom entry, 100 items: about 90 KB; the feed's 20 entries (FEED_DIGESTS, src/http/digests.ts)
 *   come to about 1.8 MB at most, within what feed readers accept from one document.
 *
 * A page is a slice of the digest in its order, laid out as a digest is: "Saved" first, then top stories,
 * then one group per feed. The email, its Atom entry, `digest show` and the EPUB show the email's view
 * (digest/load.ts loadClaimedDigests): its entries and each feed's "+N more from" line, read at most
 * EMAIL_ROWS rows, then cut by size (render/fit.ts), ending with "…and N more entries" and the web page's
 * link. A digest built before migration 0025 shows its first EMAIL_ITEMS (ATOM_ENTRY_ITEMS) items.
 */

/** Items on one page of a digest's web page (`/digests/ID?token=…&page=N`). */
export const DIGEST_PAGE_ITEMS = 200;

/** Items in a digest email (the first ones of the digest); the rest are on the web page. */
export const EMAIL_ITEMS = 100;

/** Items in a digest's entry of the Atom feed (the first ones of the digest); the rest are on the web page. */
export const ATOM_ENTRY_ITEMS = 100;

/**
 * Shown items of a digest its email's view reads at most (its saved links alone may be 10,000). More than
 * any email or Atom entry holds within its size: an entry renders to at least about 450 bytes of HTML (a
 * one-letter title, a short link), so 100 KB holds at most about 220; the entries past the rows read are
 * counted among those cut, and the web page lists them.
 */
export const EMAIL_ROWS = 300;

/**
 * Bytes of HTML an Atom entry's content may take (render/fit.ts fitAtomEntry, the email's kind of cut), as
 * the email's HTML may take 100 KB: 20 entries (FEED_DIGESTS) of long entries cut to it made a feed of
 * 2.0 MB with the XML escaping; a digest of the default size (about 50 entries) fits whole in about 45 KB.
 */
export const ATOM_ENTRY_BYTES = 100 * 1000;

/**
 * The largest EPUB mailed to an e-reader address as an attachment; past it the message carries the
 * download link instead. Send-to-Kindle takes up to 50 MB, but base64 makes the message a third larger and
 * many relays refuse messages past 25 MB (Gmail, Outlook): 20 MB of EPUB stays under those. A digest's
 * EPUB is text only (images are left out) and bounded by EMAIL_ROWS, so this is rarely reached.
 */
export const EREADER_MAX_BYTES = 20 * 1024 * 1024;
