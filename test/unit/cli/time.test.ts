import { describe, expect, it } from 'vitest';
import { formatTime, relativeTime } from '../../../src/cli/time';

describe('formatTime', () => {
  const iso = '2026-03-04T05:06:07.890Z';
  it('iso: UTC to the second', () => {
    expect(formatTime(iso, 'iso')).toBe('2026-03-04T05:06:07Z');
  });
  it('local: shifted by the zone, with its offset (as git iso-local)', () => {
    expect(formatTime(iso, 'local', new Date(), 330)).toBe('2026-03-04 10:36:07 +0530');
    expect(formatTime(iso, 'local', new Date(), -420)).toBe('2026-03-03 22:06:07 -0700');
    expect(formatTime(iso, 'local', new Date(), 0)).toBe('2026-03-04 05:06:07 +0000');
  });
  it('relative: against now', () => {
    const at = (seconds: number) => new Date(Date.parse(iso) + seconds * 1000);
    expect(formatTime(iso, 'relative', at(0))).toBe('just now');
    expect(formatTime(iso, 'relative', at(1))).toBe('1 second ago');
    expect(formatTime(iso, 'relative', at(125))).toBe('2 minutes ago');
    expect(formatTime(iso, 'relative', at(3 * 3600))).toBe('3 hours ago');
    expect(formatTime(iso, 'relative', at(86400))).toBe('1 day ago');
    expect(formatTime(iso, 'relative', at(400 * 86400))).toBe('1 year ago');
    expect(formatTime(iso, 'relative', at(-5))).toBe('in the future');
  });
  it('leaves an unparsable time as it is', () => {
    expect(formatTime('yesterday', 'iso')).toBe('yesterday');
  });
  it('relativeTime picks the largest whole unit', () => {
    expect(relativeTime(59)).toBe('59 seconds ago');
    expect(relativeTime(60)).toBe('1 minute ago');
    expect(relativeTime(13 * 86400)).toBe('1 week ago');
    expect(relativeTime(45 * 86400)).toBe('1 month ago');
  });
});
