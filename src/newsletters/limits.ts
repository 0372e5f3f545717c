/**
 * The bounds of one inbound message (docs/newsletters.md, "Limits"): whatever a sender writes, what is
 * parsed, kept and stored stays within them. The message's own size is TIDINGS_INBOUND_MAX_BYTES.
 */

/** The header block of the message or of any part, in bytes (postal-mime's maxHeadersSize). */
export const MAX_HEADER_BYTES = 256 * 1024;

/** MIME parts nested in one another (postal-mime's maxNestingDepth); deeper is malformed. */
export const MAX_MIME_DEPTH = 20;

/** Attachments whose names are listed on the item's page; past it, "and N more". */
export const MAX_ATTACHMENT_NAMES = 50;

/** A listed attachment's name, in characters. */
export const MAX_ATTACHMENT_NAME = 200;

/** Recipients read from To, Cc, Delivered-To and X-Original-To. */
export const MAX_RECIPIENTS = 100;

/** The subject kept, in characters (a title: lib/display.ts MAX_TITLE_LENGTH shortens it further). */
export const MAX_SUBJECT_CHARS = 1000;

/** The From display name kept, in characters (a feed's name). */
export const MAX_NAME_CHARS = 200;

/** The Message-ID kept, in characters (RFC 5322's line length). */
export const MAX_MESSAGE_ID_CHARS = 998;

/** List-Unsubscribe and List-Unsubscribe-Post kept, in characters. */
export const MAX_UNSUBSCRIBE_CHARS = 2048;

/** The HTML of the body parsed, in characters; past it the rest is cut before sanitising. */
export const MAX_BODY_PARSE_CHARS = 3 * 1024 * 1024;

/** Elements nested deeper than this in the body are dropped, their text kept. */
export const MAX_HTML_NESTING = 100;

/** The summary: its first real sentences, in characters (a page's description's cap). */
export const MAX_SUMMARY_CHARS = 300;

/**
 * A message's parse in its thread (newsletters/parseThread.ts): time from the hand-over, and the thread's
 * heap. The largest message taken (10 MB by default) parses in well under a second and 100 MB. The heap
 * stays ten times the largest message TIDINGS_INBOUND_MAX_BYTES allows (25 MB, at most 50 MB as one
 * UTF-16 string): a thread past its heap limit in many steps ends alone (the message is malformed), but one
 * single allocation far past it ends the whole process (seen with a 96 MB body in a 48 MB heap).
 */
export const PARSE_TIME_LIMIT_MS = 20_000;
export const PARSE_HEAP_MB = 256;

/** Messages parsed at once in one process (each in a thread of the kept pool). */
export const PARSE_THREADS = 2;

/**
 * Messages one kept parse thread reads before a fresh one replaces it (newsletters/parseThread.ts). A
 * fresh thread costs about 350 ms of CPU before it reads as fast as a warm one (its start, then its first
 * fifty messages compiled as they run: 10 ms each at first against 2.7 warm), which at 200 messages a
 * thread was 1.7 ms a message, two thirds of a warm parse. A thread's heap after 3,000 newsletters of
 * 100 KB is what it was after 100 (9 MB): nothing a message leaves behind grows, and its heap cap holds
 * whatever the count.
 */
export const THREAD_MESSAGES = 2000;
