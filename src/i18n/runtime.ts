/**
 * What compiled messages (src/i18n/compiled/) call: numbers and plural rules of one language, through
 * Node's own Intl. Made once per language (src/i18n/locale.ts), each Intl object at its first use.
 */

/** The cases of a plural or select: `other` always (the catalogue check makes sure), `=N` and categories. */
export interface Cases {
  readonly [key: string]: (() => string) | undefined;
  readonly other: () => string;
}

export interface Runtime {
  number(n: number): string;
  /** The case for n: `=n` first, else n − offset's plural category (ordinal with `ordinal`), else other. */
  plural(n: number, offset: number, cases: Cases, ordinal?: boolean): string;
  select(value: string, cases: Cases): string;
}

export function runtimeFor(intlLocale: string, grouping: boolean): Runtime {
  let numbers: Intl.NumberFormat | undefined;
  let cardinals: Intl.PluralRules | undefined;
  let ordinals: Intl.PluralRules | undefined;
  const number = (n: number): string =>
    (numbers ??= new Intl.NumberFormat(intlLocale, {
      // 'auto': as the locale groups, so Spanish and Polish leave four digits whole ("1234", "12.345").
      useGrouping: grouping ? 'auto' : false,
      maximumFractionDigits: 2,
    })).format(n);
  return {
    number,
    plural(n, offset, cases, ordinal = false) {
      const exact = cases[`=${n}`];
      if (exact !== undefined) return exact();
      const rules = ordinal
        ? (ordinals ??= new Intl.PluralRules(intlLocale, { type: 'ordinal' }))
        : (cardinals ??= new Intl.PluralRules(intlLocale));
      return (cases[rules.select(n - offset)] ?? cases.other)();
    },
    select(value, cases) {
      return (cases[value] ?? cases.other)();
    },
  };
}
