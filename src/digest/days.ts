/**
 * The days of the week digests are built on, as a person types them, as stored ("mon,wed,fri") and as
 * shown.
 */

/** ISO weekday: 1 is Monday, 7 is Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const LONG_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/**
 * "daily", a list ("mon,wed,fri"), ranges ("mon-fri", "fri-mon" wraps) or both ("mon-wed,sat"); names
 * may be spelled out. The days in week order, or why the value is not understood.
 */
export function parseDays(value: string): Weekday[] | string {
  const text = value.trim().toLowerCase();
  if (text === 'daily' || text === 'every day') return [1, 2, 3, 4, 5, 6, 7];
  if (text === '') return 'give at least one day (mon-fri, mon,wed,fri or daily)';
  const chosen = new Set<Weekday>();
  for (const part of text.split(',')) {
    const bounds = part.split('-').map((p) => dayNumber(p.trim()));
    const [from, to] = bounds;
    if (bounds.length > 2 || from === undefined || bounds.includes(null)) {
      return `"${value}" is not a list of days: use mon-fri, mon,wed,fri or daily`;
    }
    const last = to ?? from;
    if (from === null || last === null) return `"${value}" is not a list of days`;
    for (let d = from; ; d = ((d % 7) + 1) as Weekday) {
      chosen.add(d);
      if (d === last) break;
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

function dayNumber(name: string): Weekday | null {
  const short = DAY_NAMES.indexOf(name as (typeof DAY_NAMES)[number]);
  const index = short >= 0 ? short : LONG_NAMES.indexOf(name);
  return index >= 0 ? ((index + 1) as Weekday) : null;
}

/** As stored: "mon,tue,wed". */
export function formatDayList(days: readonly Weekday[]): string {
  return days.map((d) => DAY_NAMES[d - 1]).join(',');
}

/** The stored list, read back; unknown names are ignored and an empty list means every day. */
export function storedDays(stored: string): Set<Weekday> {
  const parsed = parseDays(stored);
  return new Set(typeof parsed === 'string' || parsed.length === 0 ? [1, 2, 3, 4, 5, 6, 7] : parsed);
}

/** Compact, for people: "daily", "mon-fri", "mon,wed,fri", "sat-sun". */
export function describeDays(stored: string): string {
  const list = [...storedDays(stored)].sort((a, b) => a - b);
  if (list.length === 7) return 'daily';
  const first = list[0];
  const last = list[list.length - 1];
  const contiguous = first !== undefined && last !== undefined && last - first === list.length - 1;
  if (contiguous && list.length >= 3) return `${DAY_NAMES[first - 1]}-${DAY_NAMES[last - 1]}`;
  return formatDayList(list);
}
