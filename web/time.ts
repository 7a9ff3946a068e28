/**
 * Times as the page shows them: in the zone the author recorded, labelled with that zone
 * (`2026-11-27 21:03:05 +0100`), and the same instant in the viewer's own zone, labelled as
 * such, for a title. Never a bare time that does not say which clock it is.
 */

/** Minutes east of UTC of a git zone (`+0100` → 60, `-0530` → -330); 0 for anything else. */
export function zoneMinutes(zone: string): number {
  const m = /^([+-])(\d{2})(\d{2})$/.exec(zone);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The instant `iso` on the clock of `zone`, followed by the zone. */
export function inZone(iso: string, zone: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const shifted = new Date(t + zoneMinutes(zone) * 60_000);
  return `${shifted.toISOString().replace('T', ' ').slice(0, 19)} ${/^[+-]\d{4}$/.test(zone) ? zone : '+0000'}`;
}

/** The instant on the viewer's clock, labelled "your time" with the viewer's offset. */
export function viewerTime(iso: string, offsetMinutes = -new Date(Date.parse(iso)).getTimezoneOffset()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const abs = Math.abs(offsetMinutes);
  const zone = `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${inZone(iso, zone)} (your time)`;
}
