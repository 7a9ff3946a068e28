/** Times on the review page carry their zone: the author's own clock labelled with its zone, or the viewer's, labelled. */
import { describe, expect, it } from 'vitest';
import { zoneOf } from '../../../src/inspect/signature';
import { inZone, viewerTime, zoneMinutes } from '../../../web/time';

describe('times with their zone', () => {
  it('shows an instant on the clock of the zone the author recorded, with the zone', () => {
    expect(inZone('2024-01-01T00:00:00.000Z', '+0530')).toBe('2024-01-01 05:30:00 +0530');
    expect(inZone('2024-01-01T00:00:00.000Z', '-0800')).toBe('2023-12-31 16:00:00 -0800');
    expect(inZone('2024-01-01T00:00:00.000Z', '+0000')).toBe('2024-01-01 00:00:00 +0000');
    // A zone that is not git's form is never passed off as the author's: UTC, said so.
    expect(inZone('2024-01-01T00:00:00.000Z', 'bogus')).toBe('2024-01-01 00:00:00 +0000');
    expect(inZone('not a time', '+0100')).toBe('not a time');
  });

  it("labels the viewer's own clock", () => {
    expect(viewerTime('2024-01-01T00:00:00.000Z', 60)).toBe('2024-01-01 01:00:00 +0100 (your time)');
    expect(viewerTime('2024-01-01T00:00:00.000Z', -90)).toBe('2023-12-31 22:30:00 -0130 (your time)');
  });

  it('reads and writes git zones alike', () => {
    for (const minutes of [0, 60, -60, 330, -570, 765, -720]) expect(zoneMinutes(zoneOf(minutes))).toBe(minutes);
    expect(zoneOf(-330)).toBe('-0530');
  });
});
