/**
 * The Node inflater and deflater that reuse one native zlib context across objects, and the
 * stream functions they fall back to: same contracts, checked on the same cases.
 */
import { randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReusedDeflater, createReusedInflater, DEFLATE_LEVEL, streamDeflater, streamInflater, type ReusedDeflater, type ReusedInflater } from '../../../src/git/node/zlib-contexts';

const reused = createReusedInflater();
const reusedDeflater = createReusedDeflater();

describe('createReusedInflater / createReusedDeflater', () => {
  it('are available on this Node (its zlib internals are the expected ones)', () => {
    expect(reused).not.toBeNull();
    expect(reusedDeflater).not.toBeNull();
  });
});

describe.each([
  ['reused native context', reusedDeflater!],
  ['stream fallback', streamDeflater],
])('deflater: %s', (_label, deflater: ReusedDeflater) => {
  // Not byte-identical to deflateSync: a reused context may find other (valid) matches than a
  // fresh one. What matters is that every stream, whatever came before it, inflates to its input.
  it('property: whatever it deflated before, what it writes now zlib reads back as the input', () => {
    const input = fc.oneof(fc.uint8Array({ maxLength: 70_000 }), fc.string({ maxLength: 20_000 }).map((s) => new TextEncoder().encode(s.repeat(3))));
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 4 }), (inputs) => {
        for (const data of inputs) expect(Buffer.compare(inflateSync(deflater.deflate(data)), Buffer.from(data))).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('writes at git\'s loose-object level (the zlib header of level 1)', () => {
    // 0x78 0x01: deflate, 32 KiB window, the "fastest" level flag, as deflateSync at level 1 writes.
    expect(Buffer.from(deflater.deflate(Buffer.from('some object\n'.repeat(20)))).subarray(0, 2)).toEqual(deflateSync(Buffer.from('x'), { level: DEFLATE_LEVEL }).subarray(0, 2));
  });

  it('deflates incompressible data larger than its input (stored blocks) and empty input', () => {
    for (const data of [randomBytes(200_000), randomBytes(1), new Uint8Array(0)]) {
      expect(Buffer.compare(inflateSync(deflater.deflate(data)), Buffer.from(data))).toBe(0);
    }
  });
});

describe.each([
  ['reused native context', reused!],
  ['stream fallback', streamInflater],
])('inflater: %s', (_label, inflater: ReusedInflater) => {
  it('inflates a stream followed by unrelated bytes to exactly the declared size, many times over', () => {
    for (let i = 0; i < 50; i++) {
      const data = i % 2 === 0 ? randomBytes(i * 97) : Buffer.from('tree entry text '.repeat(i * 13));
      const input = Buffer.concat([deflateSync(data), randomBytes(i % 7)]);
      expect(Buffer.compare(Buffer.from(inflater.inflate(input, data.length)), data)).toBe(0);
    }
  });

  it('inflates an empty stream to zero bytes', () => {
    expect(inflater.inflate(deflateSync(Buffer.alloc(0)), 0).length).toBe(0);
  });

  it('refuses a stream longer or shorter than declared, and keeps working afterwards', () => {
    const data = Buffer.from('exactly thirty-two bytes long!!\n');
    const input = deflateSync(data);
    expect(() => inflater.inflate(input, data.length - 1)).toThrow();
    expect(() => inflater.inflate(input, data.length + 1)).toThrow();
    expect(Buffer.from(inflater.inflate(input, data.length)).toString()).toBe(data.toString());
  });

  it('refuses a truncated stream and damaged bytes, and keeps working afterwards', () => {
    const data = Buffer.from('some content that compresses well '.repeat(40));
    const input = deflateSync(data);
    expect(() => inflater.inflate(input.subarray(0, input.length - 6), data.length)).toThrow();
    const damaged = Buffer.from(input);
    damaged[Math.floor(damaged.length / 2)] ^= 0xff;
    expect(() => inflater.inflate(damaged, data.length)).toThrow();
    expect(() => inflater.inflate(Buffer.from('not zlib at all'), 10)).toThrow();
    expect(Buffer.compare(Buffer.from(inflater.inflate(input, data.length)), data)).toBe(0);
  });

  it('property: agrees with zlib on any bytes at any deflate level', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 9 }), fc.uint8Array({ maxLength: 8 }), (data, level, trailing) => {
        const input = Buffer.concat([deflateSync(data, { level }), trailing]);
        expect(Buffer.compare(Buffer.from(inflater.inflate(input, data.length)), Buffer.from(data))).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
