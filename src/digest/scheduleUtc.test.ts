import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

/**
 * A server whose accounts keep UTC, the default, never asks Intl for anything to make or follow their
 * schedules: Intl's first use loads ICU's data, about 8 MiB resident (issue 26). In a process of its own,
 * where nothing has used Intl yet; Intl's constructors there count their calls.
 */
test('UTC schedules are made, checked and followed without Intl', () => {
  const module = (name: string): string => JSON.stringify(new URL(name, import.meta.url).href);
  const script = `
    const calls = [];
    for (const name of ['DateTimeFormat', 'NumberFormat', 'Collator', 'PluralRules', 'Locale']) {
      const Original = Intl[name];
      Intl[name] = new Proxy(Original, {
        construct(target, args) { calls.push(name); return Reflect.construct(target, args); },
        apply(target, self, args) { calls.push(name); return Reflect.apply(target, self, args); },
      });
    }
    const { canonicalZone } = await import(${module('./zone.ts')});
    const s = await import(${module('./schedule.ts')});
    const zones = ['UTC', 'utc', ' Utc '].map(canonicalZone);
    const schedule = s.scheduleOf({ timezone: 'UTC', digest_time: '07:00', digest_days: 'mon,wed,fri' });
    const at = new Date('2026-11-27T08:00:00Z');
    const next = s.nextSlotAfter(at, schedule);
    const run = s.nextSlotToRun(at, schedule, new Set([next.localDate]));
    const latest = s.latestSlotAtOrBefore(at, schedule);
    console.log(JSON.stringify({
      calls, zones, next: next.at.toISOString(), run: run.at.toISOString(), latest: latest?.at.toISOString(),
      day: s.localDateOf(at, 'UTC'), before: s.dayBeforeOf(at, schedule),
    }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  const result = JSON.parse(out) as Record<string, unknown>;
  // 2026-11-27 is a Friday: the next Friday-or-Monday-or-Wednesday 07:00 after 08:00 is Monday the 30th.
  assert.deepEqual(result, {
    calls: [],
    zones: ['UTC', 'UTC', 'UTC'],
    next: '2026-11-30T07:00:00.000Z',
    run: '2026-12-02T07:00:00.000Z',
    latest: '2026-11-27T07:00:00.000Z',
    day: '2026-11-27',
    before: '2026-11-26',
  });
});
