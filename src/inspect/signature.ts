/**
 * Who made a commit and when, as the page shows it: the author's name and email, and the time
 * as an instant (ISO, UTC) with the zone the author recorded (`+0100`), so the page can show the
 * author's own clock labelled with its zone, never a bare UTC time that does not say so.
 */
import type { Signature } from '../git';

export interface Person {
  name: string;
  email: string;
  /** The instant, ISO 8601 in UTC. */
  time: string;
  /** The recorded zone, as git writes it: `+0100`, `-0530`. */
  zone: string;
}

export function zoneOf(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

export function personOf(sig: Signature): Person {
  return { name: sig.name, email: sig.email, time: new Date(sig.timestamp * 1000).toISOString(), zone: zoneOf(sig.timezoneOffset) };
}

/** A session's model as `provider/model`, or null when the state names none. */
export function modelName(model: { provider: string; model?: string } | undefined): string | null {
  return model ? [model.provider, model.model].filter(Boolean).join('/') : null;
}
