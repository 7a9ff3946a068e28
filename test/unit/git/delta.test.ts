import { describe, expect, it } from 'vitest';
import { applyDelta } from '../../../src/git/delta';
import { isForgeError } from '../../../src/errors';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** size varint as pack-format.txt encodes it (7 bits per byte, little-endian, MSB = more). */
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

describe('applyDelta', () => {
  const base = enc('hello, world\n');

  it('applies copy and insert instructions', () => {
    // copy base[0..5) "hello", insert " there", copy base[5..13) ", world\n"
    const delta = new Uint8Array([...varint(13), ...varint(19), 0x80 | 0x10, 5, 6, ...enc(' there'), 0x80 | 0x01 | 0x10, 5, 8]);
    expect(dec(applyDelta(base, delta))).toBe('hello there, world\n');
  });

  it('treats a copy of size 0 as 0x10000 bytes', () => {
    const big = new Uint8Array(0x10000 + 3).fill(7);
    const delta = new Uint8Array([...varint(big.length), ...varint(0x10000), 0x80]);
    const out = applyDelta(big, delta);
    expect(out.length).toBe(0x10000);
    expect(out.every((b) => b === 7)).toBe(true);
  });

  it('uses multi-byte offsets and sizes', () => {
    const big = new Uint8Array(70000);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    // copy 300 bytes from offset 66000 (0x0101D0): offset bytes 0xD0 0x01 0x01, size 0x2C 0x01
    const delta = new Uint8Array([...varint(big.length), ...varint(300), 0x80 | 0x01 | 0x02 | 0x04 | 0x10 | 0x20, 0xd0, 0x01, 0x01, 0x2c, 0x01]);
    expect(Buffer.from(applyDelta(big, delta)).equals(big.subarray(66000, 66300))).toBe(true);
  });

  it.each([
    ['a base of the wrong size', new Uint8Array([...varint(12), ...varint(1), 1, 0x41])],
    ['a copy out of the base', new Uint8Array([...varint(13), ...varint(20), 0x80 | 0x01 | 0x10, 5, 20])],
    ['a result shorter than announced', new Uint8Array([...varint(13), ...varint(5), 1, 0x41])],
    ['an insert running past the delta', new Uint8Array([...varint(13), ...varint(5), 5, 0x41])],
    ['the reserved 0 instruction', new Uint8Array([...varint(13), ...varint(1), 0])],
  ])('refuses %s as OBJECT_CORRUPT', (_label, delta) => {
    let caught: unknown;
    try {
      applyDelta(base, delta);
    } catch (error) {
      caught = error;
    }
    expect(isForgeError(caught, 'OBJECT_CORRUPT')).toBe(true);
  });
});
