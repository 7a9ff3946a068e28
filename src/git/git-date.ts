/**
 * git's date formats, as GIT_AUTHOR_DATE and GIT_COMMITTER_DATE take them (git-commit(1), DATE
 * FORMATS): git's internal `<unix-timestamp> <zone>` (with or without `@`), RFC 2822
 * (`Thu, 07 Apr 2005 22:13:13 +0200`), git's own default (`Thu Apr 7 22:13:13 2005 +0200`) and
 * ISO 8601 (`2005-04-07T22:13:13`, a space for the T, fractional seconds ignored). A zone is
 * `Z`, `+hhmm`, `+hh:mm` or `+hh`; without one, the local zone of that moment, as git does. Pure:
 * the caller (the CLI) reads the variables.
 */

/** A moment as a commit header writes it. */
export interface GitDate {
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes east of UTC (+0130 is 90). */
  timezoneOffset: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONE = String.raw`(Z|[+-]\d{2}(?::?\d{2})?)`;
const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?`;
const DAY_NAME = String.raw`(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+`;
const MONTH_NAME = String.raw`(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*`;

const INTERNAL = new RegExp(String.raw`^@?(\d+)(?:\s+${ZONE})?$`);
const ISO = new RegExp(String.raw`^(\d{4})-(\d{1,2})-(\d{1,2})(?:T|\s+)${TIME}\s*${ZONE}?$`);
const RFC2822 = new RegExp(String.raw`^(?:${DAY_NAME})?(\d{1,2})\s+${MONTH_NAME}\s+(\d{4})\s+${TIME}(?:\s+${ZONE})?$`, 'i');
const GIT_DEFAULT = new RegExp(String.raw`^${DAY_NAME}${MONTH_NAME}\s+(\d{1,2})\s+${TIME}\s+(\d{4})(?:\s+${ZONE})?$`, 'i');

/** The date `text` names, or null when it is in none of git's formats (git: "invalid date format"). */
export function parseGitDate(text: string): GitDate | null {
  const s = text.trim();
  let m = INTERNAL.exec(s);
  if (m) {
    const timestamp = Number(m[1]);
    if (!Number.isSafeInteger(timestamp)) return null;
    return { timestamp, timezoneOffset: m[2] !== undefined ? zoneMinutes(m[2]) : localOffsetAt(timestamp) };
  }
  m = ISO.exec(s);
  if (m) return moment(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), m[7]);
  m = RFC2822.exec(s);
  if (m) return moment(Number(m[3]), monthOf(m[2]!), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), m[7]);
  m = GIT_DEFAULT.exec(s);
  if (m) return moment(Number(m[6]), monthOf(m[1]!), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0), m[7]);
  return null;
}

/** `+0200` as git writes a zone. */
export function formatZone(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

function moment(year: number, month: number, day: number, hour: number, minute: number, second: number, zone: string | undefined): GitDate | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  if (zone === undefined) {
    // The local zone of that wall-clock time, as git's mktime does.
    const local = new Date(year, month - 1, day, hour, minute, second);
    if (local.getDate() !== day) return null;
    return { timestamp: Math.floor(local.getTime() / 1000), timezoneOffset: -local.getTimezoneOffset() };
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(utc).getUTCDate() !== day) return null;
  const offset = zoneMinutes(zone);
  return { timestamp: Math.floor(utc / 1000) - offset * 60, timezoneOffset: offset };
}

function zoneMinutes(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return zone[0] === '-' ? -minutes : minutes;
}

function localOffsetAt(timestamp: number): number {
  return -new Date(timestamp * 1000).getTimezoneOffset();
}
