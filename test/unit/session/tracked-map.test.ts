import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { savepoint, takeChangedKeys, trackKeys } from '../../../src/session/tracked-map';

describe('tracked state maps', () => {
  it('pass reads, enumeration, spreads and JSON through, and note every key set or deleted', () => {
    const map = trackKeys({ a: '1', b: '2' });
    expect(trackKeys(map)).toBe(map);
    map.c = '3';
    delete map.a;
    Object.assign(map, { b: '2b' });
    expect({ ...map }).toEqual({ b: '2b', c: '3' });
    expect(JSON.stringify(map)).toBe('{"b":"2b","c":"3"}');
    expect(Object.keys(map)).toEqual(['b', 'c']);
    expect(takeChangedKeys(map)!.sort()).toEqual(['a', 'b', 'c']);
    expect(takeChangedKeys(map)).toEqual([]);
    expect(takeChangedKeys({ plain: 'x' })).toBeNull();
  });

  it('property: restoring a savepoint gives back exactly the map as it was, whatever was done since', () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd/e', '__proto__x');
    const op = fc.oneof(fc.tuple(fc.constant('set' as const), key, fc.string()), fc.tuple(fc.constant('delete' as const), key, fc.constant('')));
    fc.assert(
      fc.property(fc.dictionary(key, fc.string()), fc.array(op, { maxLength: 12 }), fc.boolean(), (initial, ops, tracked) => {
        const map = tracked ? trackKeys({ ...initial }) : { ...initial };
        const point = savepoint(map);
        for (const [kind, k, v] of ops) {
          if (kind === 'set') map[k] = v;
          else delete map[k];
        }
        const restored = point.restore();
        expect({ ...restored }).toEqual(initial);
        if (tracked) expect(restored).toBe(map);
      }),
      { numRuns: 300 },
    );
  });

  it('a savepoint inside another copies instead, and a released savepoint no longer records', () => {
    const map = trackKeys({ a: '1' });
    const outer = savepoint(map);
    const inner = savepoint(map);
    map.a = '2';
    expect(inner.restore()).toEqual({ a: '1' });
    expect(inner.restore()).not.toBe(map);
    outer.release();
    map.a = '3';
    const again = savepoint(map);
    map.b = 'x';
    expect({ ...again.restore() }).toEqual({ a: '3' });
  });
});
