/**
 * Issue 23 §3, inflate and delta bombs, at the unit level: the inflater never produces more than
 * one byte past an entry's declared size, and a delta's declared result is checked against what
 * its instructions can produce before the result is allocated.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { applyDelta, deltaSizes, maxDeltaResult } from '../../../src/git/delta';
import { nodeStreamInflater } from '../../../src/remote/node/stream-inflater';
import { findUnsafePath } from '../../../src/git/checkout-paths';

function varints(...values: number[]): number[] {
  const out: number[] = [];
  for (let n of values) {
    do {
      let b = n & 0x7f;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
  }
  return out;
}

describe('issue 23 §3: inflate bomb', () => {
  it('stops one byte past the declared size instead of inflating the whole stream', () => {
    const stream = deflateSync(Buffer.alloc(32 * 1024 * 1024));
    expect(() => nodeStreamInflater(new Uint8Array(stream), 0, 16)).toThrow(/inflates past the 16 bytes/);
  });

  it('inflates an honest entry and reports the compressed length, trailing bytes left alone', () => {
    const stream = deflateSync(Buffer.from('hello world\n'));
    const data = new Uint8Array(Buffer.concat([Buffer.from([1, 2, 3]), stream, Buffer.from('NEXT')]));
    const { content, consumed } = nodeStreamInflater(data, 3, 12);
    expect(Buffer.from(content).toString()).toBe('hello world\n');
    expect(consumed).toBe(stream.length);
    // One byte past the declared size is enough to catch the liar.
    expect(() => nodeStreamInflater(data, 3, 11)).toThrow(/inflated to 12 bytes, the entry declares 11/);
    expect(() => nodeStreamInflater(data, 3, 5)).toThrow(/inflates past the 5 bytes/);
    expect(() => nodeStreamInflater(data, 3, 13)).toThrow(/inflated to 12 bytes/);
  });
});

describe('issue 23 §3: delta bomb', () => {
  it('refuses a declared result its instructions cannot produce, before allocating it', () => {
    const base = new Uint8Array(10);
    const delta = Uint8Array.from([...varints(10, 1024 * 1024 * 1024), 0x90, 10]);
    expect(deltaSizes(delta)).toEqual({ base: 10, result: 1024 * 1024 * 1024 });
    expect(() => applyDelta(base, delta)).toThrow(/cannot produce/);
  });

  it('applies a delta that really produces its declared result, up to 64 KiB per instruction byte', () => {
    const base = new Uint8Array(0x10000).fill(7);
    const delta = Uint8Array.from([...varints(0x10000, 4 * 0x10000), 0x80, 0x80, 0x80, 0x80]);
    expect(applyDelta(base, delta).length).toBe(4 * 0x10000);
    expect(maxDeltaResult(4)).toBe(4 * 0x10000);
  });

  it('a cut size header is no sizes at all', () => {
    expect(deltaSizes(Uint8Array.from([0x80]))).toBeNull();
    expect(() => applyDelta(new Uint8Array(0), Uint8Array.from([0x80]))).toThrow();
  });
});

describe('issue 23 §1: paths a writer refuses (checkout-paths)', () => {
  const file = (path: string, mode = '100644') => ({ path, mode });
  it('refuses .git in any spelling and dot components at any depth, whatever the file system', () => {
    for (const path of ['.git/config', 'a/.GIT/hooks/x', 'a/git~1/x', 'x/.git.', 'x/.g\u200cit/y', '../x', 'a/../../x', 'a/./b', 'a//b']) {
      expect(findUnsafePath([file(path)], false), path).not.toBeNull();
    }
    expect(findUnsafePath([file('.gitmodules', '120000')], false)?.problem).toMatch(/gitmodules/);
    expect(findUnsafePath([file('.github/workflows/ci.yml'), file('a/.gitx'), file('git~2')], false)).toBeNull();
  });

  it('refuses paths that collide by case or Unicode composition only where the file system folds them', () => {
    const collisions = [
      [file('S', '120000'), file('s/x')],
      [file('s/x'), file('S', '120000')],
      [file('README'), file('readme')],
      [file('A/b'), file('a/c')],
      [file('caf\u00e9'), file('cafe\u0301')],
    ];
    for (const entries of collisions) {
      expect(findUnsafePath(entries, true)?.problem, JSON.stringify(entries)).toBe('case-collision');
      expect(findUnsafePath(entries, false), JSON.stringify(entries)).toBeNull();
    }
    expect(findUnsafePath([file('a/b'), file('a/c'), file('ab')], true)).toBeNull();
  });
});
