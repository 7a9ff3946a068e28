/**
 * What `--since` accepts, for `forge log --since` and the inspector's session search alike (one
 * parser): ISO 8601 (or any date Date.parse reads), `@<unix seconds>`, or `<n> <unit>s ago`
 * ("2 weeks ago", "3.days.ago" as git also writes it). Relative dates count from `now`.
 */
import { ForgeError } from '../errors';

const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800, month: 2629746, year: 31556952 };

/** Seconds since the epoch of the moment `text` names; `option` names the input in the refusal (`--since`, `since`). */
export function parseSince(text: string, now: Date = new Date(), option = '--since'): number {
  const trimmed = text.trim();
  const unix = /^@(\d+)$/.exec(trimmed);
  if (unix) return Number(unix[1]);
  const relative = /^(\d+)[\s.]*(second|minute|hour|day|week|month|year)s?[\s.]*ago$/i.exec(trimmed);
  if (relative) return Math.floor(now.getTime() / 1000) - Number(relative[1]) * UNIT_SECONDS[relative[2]!.toLowerCase()]!;
  const parsed = Date.parse(trimmed);
  if (!Number.isNaN(parsed)) return Math.floor(parsed / 1000);
  throw new ForgeError('INVALID_ARGUMENT', `${option} ${JSON.stringify(text)} is not a date: use ISO 8601 (2026-11-20 or 2026-11-20T10:00:00Z), @<unix seconds>, or "3 days ago".`, { data: { since: text } });
}
