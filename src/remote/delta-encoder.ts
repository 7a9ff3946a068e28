/**
 * A git delta (gitformat-pack "Deltified representation") of `target` against `base`, the
 * inverse of git/delta.ts applyDelta: base's 16-byte blocks are indexed, the target is scanned
 * for them, a match is extended both ways and becomes a copy, everything else an insert. A turn
 * changes a few lines of a file and appends to the session's state file, so against the same
 * path's previous version most of an object is copies. Pure.
 */
const BLOCK = 16;
const MAX_COPY = 0xffffff;
const MAX_INSERT = 0x7f;
/** Offsets kept per hash: bounds the work on repetitive input. */
const BUCKET = 8;

function blockHash(bytes: Uint8Array, at: number): number {
  let h = 0;
  for (let i = 0; i < BLOCK; i++) h = (Math.imul(h, 31) + bytes[at + i]!) | 0;
  return h;
}

class Out {
  bytes: number[] = [];
  varint(n: number): void {
    while (n >= 0x80) {
      this.bytes.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    this.bytes.push(n);
  }
  insert(source: Uint8Array, from: number, to: number): void {
    for (let at = from; at < to; at += MAX_INSERT) {
      const end = Math.min(to, at + MAX_INSERT);
      this.bytes.push(end - at);
      for (let i = at; i < end; i++) this.bytes.push(source[i]!);
    }
  }
  copy(offset: number, size: number): void {
    while (size > 0) {
      const n = Math.min(size, MAX_COPY);
      let op = 0x80;
      const args: number[] = [];
      for (let i = 0; i < 4; i++) {
        const b = Math.floor(offset / 2 ** (8 * i)) & 0xff;
        if (b !== 0) {
          op |= 1 << i;
          args.push(b);
        }
      }
      for (let i = 0; i < 3; i++) {
        const b = (n >> (8 * i)) & 0xff;
        if (b !== 0) {
          op |= 0x10 << i;
          args.push(b);
        }
      }
      this.bytes.push(op, ...args);
      offset += n;
      size -= n;
    }
  }
}

export function encodeDelta(base: Uint8Array, target: Uint8Array): Uint8Array {
  const index = new Map<number, number[]>();
  for (let at = 0; at + BLOCK <= base.length; at += BLOCK) {
    const h = blockHash(base, at);
    const bucket = index.get(h);
    if (bucket === undefined) index.set(h, [at]);
    else if (bucket.length < BUCKET) bucket.push(at);
  }
  const out = new Out();
  out.varint(base.length);
  out.varint(target.length);
  let pending = 0;
  let i = 0;
  while (i + BLOCK <= target.length) {
    let bestAt = -1;
    let bestLength = 0;
    for (const candidate of index.get(blockHash(target, i)) ?? []) {
      let n = 0;
      while (i + n < target.length && candidate + n < base.length && target[i + n] === base[candidate + n]) n++;
      if (n > bestLength) {
        bestLength = n;
        bestAt = candidate;
      }
    }
    if (bestLength < BLOCK) {
      i++;
      continue;
    }
    let back = 0;
    while (i - back > pending && bestAt - back > 0 && target[i - back - 1] === base[bestAt - back - 1]) back++;
    out.insert(target, pending, i - back);
    out.copy(bestAt - back, bestLength + back);
    i += bestLength;
    pending = i;
  }
  out.insert(target, pending, target.length);
  return Uint8Array.from(out.bytes);
}
