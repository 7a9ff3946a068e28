/**
 * One way of writing times across commands (forge log, forge session list), chosen with
 * --date as git log's: iso (the default: UTC, ISO 8601 to the second), local (the machine's
 * time zone, with its offset, as git's iso-local) or relative ("3 hours ago"). Pure: `now` and
 * the zone offset are passed in.
 */
export const DATE_STYLES = ['iso', 'local', 'relative'] as const;
export type DateStyle = (typeof DATE_STYLES)[number];

const pad = (n: number) => String(n).padStart(2, '0');

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function relativeTime(seconds: number): string {
  if (seconds < 0) return 'in the future';
  if (seconds < 1) return 'just now';
  for (const [unit, size] of UNITS) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/**
 * `iso`: a stored ISO time as UTC to the second; `local`: shifted by `offsetMinutes` (east of
 * UTC positive) and written with it; `relative`: against `now`. An unparsable time is returned as is.
 */
export function formatTime(iso: string, style: DateStyle, now: Date = new Date(), offsetMinutes: number = -new Date(iso).getTimezoneOffset()): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  if (style === 'relative') return relativeTime(Math.floor((now.getTime() - ms) / 1000));
  if (style === 'iso') return `${new Date(ms).toISOString().slice(0, 19)}Z`;
  const shifted = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const date = `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`;
  return `${date} ${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}
