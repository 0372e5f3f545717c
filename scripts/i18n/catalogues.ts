/**
 * The message catalogues (src/i18n/messages/LANG.json) read, checked and compiled to TypeScript
 * (src/i18n/compiled/LANG.ts). ICU MessageFormat is parsed here, at build time, by @messageformat/parser:
 * the server runs only the compiled functions over Node's own Intl (plural rules, numbers), so an idle
 * `serve` pays for no parser (measured in BENCHMARKS.md, "Message catalogues"). The pseudo-locale en-XA is
 * made here from English: every letter accented, words lengthened, placeholders and plural keys kept.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Token, parse } from '@messageformat/parser';
import { pseudoText } from '../../src/i18n/pseudo.js';

export const MESSAGES_DIR = join(import.meta.dirname, '../../src/i18n/messages');
export const COMPILED_DIR = join(import.meta.dirname, '../../src/i18n/compiled');
/** The catalogue every other one is checked against, and the pseudo-locale's source. */
export const SOURCE = 'en';
export const PSEUDO = 'en-XA';

export type Catalogue = Record<string, string>;
type ArgType = 'number' | 'string';

/** Every catalogue file: language code → messages, the source first. */
export function readCatalogues(dir = MESSAGES_DIR): Map<string, Catalogue> {
  const codes = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort((a, b) => (a === SOURCE ? -1 : b === SOURCE ? 1 : a.localeCompare(b)));
  return new Map(codes.map((code) => [code, readCatalogue(join(dir, `${code}.json`))]));
}

function readCatalogue(file: string): Catalogue {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file}: not an object of messages`);
  }
  const out: Catalogue = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`${file}: ${key} is not a string`);
    out[key] = value;
  }
  return out;
}

/** The placeholders of a message and how each is used ("count:number", "title:string"), sorted. */
export function placeholders(tokens: readonly Token[]): string[] {
  const types = new Map<string, ArgType>();
  collectArgs(tokens, types);
  return [...types].map(([name, type]) => `${name}:${type}`).sort();
}

function collectArgs(tokens: readonly Token[], types: Map<string, ArgType>): void {
  for (const t of tokens) {
    if (t.type === 'argument') {
      if (!types.has(t.arg)) types.set(t.arg, 'string');
    } else if (t.type === 'function') {
      types.set(t.arg, 'number');
    } else if (t.type === 'plural' || t.type === 'selectordinal' || t.type === 'select') {
      if (t.type === 'select') {
        if (!types.has(t.arg)) types.set(t.arg, 'string');
      } else types.set(t.arg, 'number');
      for (const c of t.cases) collectArgs(c.tokens, types);
    }
  }
}

/**
 * What is wrong with the catalogues, as lines ("de: digest.subject: missing"); none when every catalogue
 * has every key of the source and no other, each message parses, uses only `number` as a function, has an
 * `other` case in each plural and select and only the language's plural categories, and has the same
 * placeholders, used the same way, as the source's.
 */
export function catalogueProblems(catalogues: ReadonlyMap<string, Catalogue>): string[] {
  const problems: string[] = [];
  const source = catalogues.get(SOURCE);
  if (source === undefined) return [`${SOURCE}.json is missing`];
  const sourceArgs = new Map<string, string>();
  for (const [code, messages] of catalogues) {
    for (const key of Object.keys(source)) {
      if (!(key in messages)) problems.push(`${code}: ${key}: missing`);
    }
    for (const [key, text] of Object.entries(messages)) {
      if (!(key in source)) {
        problems.push(`${code}: ${key}: not in ${SOURCE}.json`);
        continue;
      }
      let tokens: Token[];
      try {
        tokens = parse(text, { strict: false });
      } catch (e) {
        problems.push(`${code}: ${key}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      problems.push(...tokenProblems(tokens, code).map((p) => `${code}: ${key}: ${p}`));
      const args = placeholders(tokens).join(', ');
      if (code === SOURCE) sourceArgs.set(key, args);
      else if (sourceArgs.get(key) !== args) {
        problems.push(
          `${code}: ${key}: placeholders {${args}}, ${SOURCE} has {${sourceArgs.get(key) ?? ''}}`,
        );
      }
    }
  }
  return problems;
}

function tokenProblems(tokens: readonly Token[], code: string): string[] {
  const out: string[] = [];
  const categories = new Set<string>(new Intl.PluralRules(code).resolvedOptions().pluralCategories);
  const ordinals = new Set<string>(
    new Intl.PluralRules(code, { type: 'ordinal' }).resolvedOptions().pluralCategories,
  );
  for (const t of tokens) {
    if (t.type === 'function' && (t.key !== 'number' || t.param !== undefined)) {
      out.push(
        `{${t.arg}, ${t.key}}: only {NAME, number} is supported (format dates in code, through Locale)`,
      );
    }
    if (t.type === 'plural' || t.type === 'selectordinal' || t.type === 'select') {
      if (!t.cases.some((c) => c.key === 'other')) out.push(`{${t.arg}, ${t.type}} has no "other" case`);
      if (t.type !== 'select') {
        const allowed = t.type === 'plural' ? categories : ordinals;
        for (const c of t.cases) {
          if (!/^=\d+$/.test(c.key) && !allowed.has(c.key)) {
            out.push(`{${t.arg}, ${t.type}}: "${c.key}" is not a plural category of ${code}`);
          }
        }
      }
      for (const c of t.cases) out.push(...tokenProblems(c.tokens, code));
    }
  }
  return out;
}

// ---- Compiling ----

/**
 * TypeScript source of a catalogue: one typed function per message over src/i18n/runtime.ts, made when
 * `load` is first called. Loading a module then makes one function, not one per message: an idle `serve`
 * holds only the catalogues of the languages it has spoken (issue 36: ≤ 80 MiB with eleven languages).
 */
export function compileCatalogue(code: string, messages: Catalogue, sourceFile: string): string {
  const typed = code === SOURCE;
  const lines = [
    `// Generated by \`npm run i18n:compile\` from ${sourceFile}: edit that, not this file.`,
    ...(typed ? [] : [`import type { Catalogue } from './${SOURCE}.js';`]),
    `import type { Runtime } from '../runtime.js';`,
    '',
    typed ? 'export const load = () => ({' : 'export const load = (): Catalogue => ({',
  ];
  for (const [key, text] of Object.entries(messages)) {
    const tokens = parse(text, { strict: false });
    const types = new Map<string, ArgType>();
    collectArgs(tokens, types);
    const body = expression(tokens, null);
    const params: string[] = [];
    const fields = [...types].map(([name, type]) => `${JSON.stringify(name)}: ${type}`);
    // The runtime's calls, not a sentence's "r." ("…must appear.").
    const usesRuntime = /\br\.(?:number|plural|select)\(d\[/.test(body);
    if (fields.length > 0 || usesRuntime) {
      params.push(`${body.includes('d[') ? 'd' : '_d'}: { ${fields.join('; ')} }`);
    }
    if (usesRuntime) params.push('r: Runtime');
    lines.push(`  ${JSON.stringify(key)}: (${params.join(', ')}): string => ${body},`);
  }
  lines.push('});', '');
  if (typed) lines.push('export type Catalogue = ReturnType<typeof load>;', '');
  return lines.join('\n');
}

/** The expression for tokens; `plural` the innermost plural's argument and offset, which # prints. */
function expression(tokens: readonly Token[], plural: { arg: string; offset: number } | null): string {
  const parts = tokens.map((t): string => {
    switch (t.type) {
      case 'content':
        return JSON.stringify(t.value);
      case 'argument':
        return `d[${JSON.stringify(t.arg)}]`;
      case 'function':
        return `r.number(d[${JSON.stringify(t.arg)}])`;
      case 'octothorpe':
        if (plural === null) return JSON.stringify('#');
        return `r.number(d[${JSON.stringify(plural.arg)}]${plural.offset === 0 ? '' : ` - ${plural.offset}`})`;
      case 'select': {
        const cases = t.cases.map((c) => `${JSON.stringify(c.key)}: () => ${expression(c.tokens, plural)}`);
        return `r.select(d[${JSON.stringify(t.arg)}], { ${cases.join(', ')} })`;
      }
      case 'plural':
      case 'selectordinal': {
        const offset = t.pluralOffset ?? 0;
        const inner = { arg: t.arg, offset };
        const cases = t.cases.map((c) => `${JSON.stringify(c.key)}: () => ${expression(c.tokens, inner)}`);
        const ordinal = t.type === 'selectordinal' ? ', true' : '';
        return `r.plural(d[${JSON.stringify(t.arg)}], ${offset}, { ${cases.join(', ')} }${ordinal})`;
      }
    }
  });
  return parts.length === 0 ? '""' : parts.join(' + ');
}

// ---- The pseudo-locale ----

/** The en-XA catalogue: English's messages with their text (never their placeholders or keys) made pseudo. */
export function pseudoCatalogue(source: Catalogue): Catalogue {
  return Object.fromEntries(
    Object.entries(source).map(([key, text]) => [
      key,
      serialize(pseudoTokens(parse(text, { strict: false }))),
    ]),
  );
}

function pseudoTokens(tokens: readonly Token[]): Token[] {
  return tokens.map((t): Token => {
    if (t.type === 'content') return { ...t, value: pseudoText(t.value) };
    if (t.type === 'plural' || t.type === 'selectordinal' || t.type === 'select') {
      return { ...t, cases: t.cases.map((c) => ({ ...c, tokens: pseudoTokens(c.tokens) })) };
    }
    return t;
  });
}

/** Tokens back to ICU MessageFormat text. */
export function serialize(tokens: readonly Token[]): string {
  return tokens
    .map((t): string => {
      switch (t.type) {
        case 'content':
          return t.value.replace(/'/g, "''").replace(/[{}#]/g, (c) => `'${c}'`);
        case 'argument':
          return `{${t.arg}}`;
        case 'function':
          return `{${t.arg}, ${t.key}}`;
        case 'octothorpe':
          return '#';
        case 'select':
        case 'plural':
        case 'selectordinal': {
          const offset = t.pluralOffset ? ` offset:${t.pluralOffset}` : '';
          const cases = t.cases.map((c) => `${c.key} {${serialize(c.tokens)}}`).join(' ');
          return `{${t.arg}, ${t.type},${offset} ${cases}}`;
        }
      }
    })
    .join('');
}
