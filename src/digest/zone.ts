import { IANAZone } from 'luxon';

/**
 * Time zones: the one check of what a zone is, for the settings (which refuse an unknown one) and for
 * everything that reads a stored zone (the schedule and the rendering of digests, which fall back to UTC).
 */

/**
 * The zone as an IANA name both Intl and Luxon know, with its usual capitals ("europe/berlin" →
 * "Europe/Berlin"), or null. The name is kept as given otherwise: ICU would turn Asia/Kathmandu into its
 * old name Asia/Katmandu.
 */
export function canonicalZone(value: string): string | null {
  const zone = value.trim();
  // What Intl answers for any spelling of UTC, without asking it: its first use loads ICU (~8 MiB
  // resident; issue 26), which a server whose accounts all keep UTC, the default, never needs otherwise.
  if (zone.toLowerCase() === 'utc') return 'UTC';
  // Only IANA names: Intl also takes offsets such as "+05:00", which have no DST rules to follow.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone) || !IANAZone.isValidZone(zone)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  const lower = zone.toLowerCase();
  return knownZones().get(lower) ?? (resolved.toLowerCase() === lower ? resolved : zone);
}

let zoneNames: Map<string, string> | undefined;

function knownZones(): Map<string, string> {
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  return zoneNames;
}

const storedZones = new Map<string, string>();

/**
 * A stored zone as schedules and renderings use it: its canonical name, or UTC when it went stale (a
 * digest is still built and rendered for such an account). Remembered: a digest run reads thousands.
 */
export function zoneOrUtc(stored: string): string {
  let zone = storedZones.get(stored);
  if (zone === undefined) {
    zone = canonicalZone(stored) ?? 'UTC';
    storedZones.set(stored, zone);
  }
  return zone;
}
