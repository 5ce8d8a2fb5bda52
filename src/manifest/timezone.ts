/**
 * `timezone`: an IANA zone name, checked against the zone database the process itself uses, since
 * croner computes fire times with the same `Intl` data.
 */

/** Names only: `Europe/Paris`, `UTC`, `Etc/GMT+5`. Newer engines accept `+01:00` too, which is not a zone. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export type TimezoneCheck = { ok: true } | { ok: false; reason: string };

export function checkTimezone(zone: string): TimezoneCheck {
  const shown = JSON.stringify(zone.length > 80 ? `${zone.slice(0, 80)}…` : zone);
  if (zone.length <= 64 && ZONE_NAME.test(zone)) {
    try {
      new Intl.DateTimeFormat(undefined, { timeZone: zone });
      return { ok: true };
    } catch {
      // falls through to the message below
    }
  }
  const offsetLike = /^(?:UTC|GMT)?\s*[+-]\d/.test(zone);
  return {
    ok: false,
    reason: `timezone ${shown} is not an IANA time zone name; use a name such as "UTC", "Europe/Paris" or "America/New_York"${
      offsetLike ? ' (UTC offsets are not zone names)' : ''
    }`,
  };
}
