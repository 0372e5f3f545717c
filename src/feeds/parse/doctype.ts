import { FeedParseError } from './model.js';

/** What the prolog says: the root element's name, and the internal general entities the DOCTYPE declares. */
export interface Prolog {
  /** The name of the first element, or null when there is none. */
  root: string | null;
  /** Internal general entities by name, their values as declared (checked: they refer to no other entity). */
  entities: Map<string, string>;
  /** Where the document goes on past the DOCTYPE (0 when it has none). */
  bodyStart: number;
}

/**
 * The first element's name past the prolog, comments, processing instructions and the DOCTYPE (whose
 * internal subset may itself contain ">"), and the entities the subset declares. One forward scan.
 * Throws FeedParseError when the internal subset declares entities checkEntity() refuses.
 */
export function readProlog(text: string): Prolog {
  const entities = new Map<string, string>();
  let bodyStart = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i)) {
    if (text.startsWith('<?', i)) i = indexAfter(text, '?>', i);
    else if (text.startsWith('<!--', i)) i = indexAfter(text, '-->', i);
    else if (text.startsWith('<!', i)) i = bodyStart = endOfDoctype(text, i, entities);
    else {
      const root = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 256))?.[1] ?? null;
      return { root, entities, bodyStart };
    }
    if (i === -1) break;
  }
  return { root: null, entities, bodyStart: 0 };
}

/** How many characters expanding a document's internal entities may add: far more than any feed needs. */
export const EXPANSION_LIMIT = 1_000_000;

/**
 * The document with its internal entities' references replaced by their values, past the DOCTYPE and
 * outside CDATA sections. Their values refer to no other entity (checkEntity() refused those), so the
 * expansion is one pass and linear; what it may add is bounded all the same (EXPANSION_LIMIT), so that
 * a short value referenced a million times is refused as the bomb it is.
 */
export function expandEntities(text: string, prolog: Prolog): string {
  if (prolog.entities.size === 0) return text;
  let added = 0;
  const body = text
    .slice(prolog.bodyStart)
    .replace(/<!\[CDATA\[[^]*?\]\]>|&([A-Za-z_:][\w.:-]*);/g, (match: string, name: string | undefined) => {
      const value = name === undefined ? undefined : prolog.entities.get(name);
      if (value === undefined) return match;
      added += value.length - match.length;
      if (added > EXPANSION_LIMIT) throw new FeedParseError(EXPANDING);
      return value;
    });
  return text.slice(0, prolog.bodyStart) + body;
}

function indexAfter(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from);
  return at === -1 ? -1 : at + end.length;
}

/**
 * Past "<!DOCTYPE …>", or past the "]>" that ends the internal subset when a "[" opens before the first
 * ">". The subset is read declaration by declaration, quoted values skipped whole (they may hold "]>"),
 * and every entity declared in it is checked by checkEntity(). -1 when the DOCTYPE never ends.
 */
function endOfDoctype(text: string, from: number, entities: Map<string, string>): number {
  const bracket = text.indexOf('[', from);
  const close = text.indexOf('>', from);
  if (bracket === -1 || close === -1 || close < bracket) return close === -1 ? -1 : close + 1;
  const subsetEnd = /\]\s*>/y;
  let i = bracket + 1;
  for (;;) {
    SUBSET_MARKUP.lastIndex = i;
    const found = SUBSET_MARKUP.exec(text);
    if (found === null) return -1;
    const at = found.index;
    if (found[0] === ']') {
      subsetEnd.lastIndex = at;
      if (subsetEnd.test(text)) return subsetEnd.lastIndex;
      i = at + 1;
    } else if (found[0] === '<!--') {
      i = indexAfter(text, '-->', at + 4);
    } else if (found[0] === '<?') {
      i = indexAfter(text, '?>', at + 2);
    } else {
      i = endOfDeclaration(text, at + 2);
      if (text.startsWith('<!ENTITY', at))
        checkEntity(text.slice(at, i === -1 ? text.length : i), 0, entities);
    }
    if (i === -1) return -1;
  }
}

/** What the internal subset is read by: its end, comments, processing instructions and declarations. */
const SUBSET_MARKUP = /\]|<!--|<\?|<!/g;

/** Past the ">" ending the markup declaration that goes on at `from`, skipping quoted values; or -1. */
function endOfDeclaration(text: string, from: number): number {
  const next = /["'>]/g;
  next.lastIndex = from;
  for (let found = next.exec(text); found !== null; found = next.exec(text)) {
    if (found[0] === '>') return next.lastIndex;
    const quoteEnd = text.indexOf(found[0], next.lastIndex);
    if (quoteEnd === -1) return -1;
    next.lastIndex = quoteEnd + 1;
  }
  return -1;
}

/**
 * "<!ENTITY", "%" for a parameter entity, the name; then a quoted value, or SYSTEM / PUBLIC and its id.
 * Groups: 1 the "%", 2 the name, 3 SYSTEM or PUBLIC, 4 the quote, 5 the value.
 */
const ENTITY_DECLARATION = /^<!ENTITY\s+(%\s+)?([^\s"'>]+)\s+(?:(SYSTEM|PUBLIC)\b|(["'])([^]*?)\4)/;
/** A reference to an entity other than the five XML predefines, or to a parameter entity. */
const EXPANDING_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos);)[A-Za-z_:][\w.:-]*;|%[A-Za-z_:][\w.:-]*;/;
const CHARACTER_REFERENCE = /&#(?:x([0-9A-Fa-f]{1,6})|(\d{1,7}));/g;

const EXPANDING = 'refused: the feed declares XML entities that expand other entities (billion laughs)';

/**
 * Throws FeedParseError for the declaration of an external entity (SYSTEM or PUBLIC: a file or an address
 * the document wants read, XXE) or of an entity whose value refers to another entity (the nesting a
 * "billion laughs" document multiplies itself with), character references that spell such a reference
 * included. An entity whose value is text and character references passes, and a general one declared at
 * the top of the subset is added to `entities` (the first declaration of a name wins, as in XML); so does
 * one whose value declares entities (a parameter entity's may) that pass, up to a nesting no feed needs.
 */
function checkEntity(declaration: string, depth: number, entities: Map<string, string>): void {
  const m = ENTITY_DECLARATION.exec(declaration);
  if (m === null) return; // malformed: the XML parser has its say
  if (m[3] !== undefined) throw new FeedParseError('refused: the feed declares an external XML entity (XXE)');
  const declared = m[5] ?? '';
  const value = declared.replace(CHARACTER_REFERENCE, characterOf);
  if (EXPANDING_REFERENCE.test(value)) throw new FeedParseError(EXPANDING);
  const name = m[2] ?? '';
  if (depth === 0 && m[1] === undefined && !entities.has(name)) entities.set(name, declared);
  for (let at = value.indexOf('<!ENTITY'); at !== -1; at = value.indexOf('<!ENTITY', at + 1)) {
    if (depth >= 2) throw new FeedParseError(EXPANDING);
    const end = endOfDeclaration(value, at + 2);
    checkEntity(value.slice(at, end === -1 ? value.length : end), depth + 1, new Map());
  }
}

/** The character a reference stands for; an impossible one stays as written, which refers to nothing. */
function characterOf(reference: string, hex: string | undefined, decimal: string | undefined): string {
  const code = hex === undefined ? Number(decimal) : parseInt(hex, 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
}
