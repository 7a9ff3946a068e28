/**
 * Inflation of many small zlib streams of known inflated size (pack objects), on ONE reused
 * native zlib context.
 *
 * `zlib.inflateSync` builds a whole stream object (a Duplex, its buffers, a native handle) per
 * call; for a tree of a few hundred bytes that costs several times the inflation itself, and a
 * merge or a listing inflates thousands of trees. Here the context is reset between objects and
 * the output buffer is allocated once at its final size. This drives the handle behind
 * `zlib.createInflate()` the way Node's own `zlibBufferSync` does (`writeSync`, then the
 * `[availOut, availIn]` write state); those are internals, so `createReusedInflater` checks them
 * and returns null if they are not there, and the caller falls back to `inflateSync`.
 */
import { Buffer } from 'node:buffer';
import { constants, createInflate, deflateSync, inflateSync } from 'node:zlib';

interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
}

export interface ReusedInflater {
  /** Inflates the stream at the start of `input` (trailing bytes are ignored) to exactly `size` bytes. */
  inflate(input: Uint8Array, size: number): Uint8Array;
}

class HandleInflater implements ReusedInflater {
  private failure: string | null = null;

  constructor(
    private readonly handle: ZlibHandle,
    private readonly state: Uint32Array,
  ) {
    handle.onerror = (message) => {
      this.failure = message;
    };
  }

  inflate(input: Uint8Array, size: number): Uint8Array {
    // One byte of room more than expected: a longer stream fills it, a shorter one leaves more.
    const out = Buffer.allocUnsafe(size + 1);
    this.failure = null;
    try {
      this.handle.writeSync(constants.Z_FINISH, input, 0, input.length, out, 0, size + 1);
    } finally {
      this.handle.reset();
    }
    // Node reports a stream cut short ("unexpected end of file") through onerror.
    if (this.failure !== null) throw new Error(this.failure);
    const produced = size + 1 - this.state[0]!;
    if (produced !== size) throw new Error(`the stream inflates to ${produced > size ? 'more than ' : ''}${produced} bytes, expected ${size}`);
    return out.subarray(0, size);
  }
}

/** A reused inflater, or null when this Node's zlib internals are not the expected ones. */
export function createReusedInflater(): ReusedInflater | null {
  try {
    const engine = createInflate() as unknown as { _handle?: ZlibHandle; _writeState?: Uint32Array };
    const handle = engine._handle;
    const state = engine._writeState;
    if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return null;
    const inflater = new HandleInflater(handle, state);
    // Self-test: one known stream, with trailing bytes, twice (the reset must work).
    const sample = Buffer.from('tree 0\0forge');
    const deflated = Buffer.concat([deflateSync(sample), Buffer.from([1, 2, 3])]);
    for (let i = 0; i < 2; i++) {
      if (Buffer.compare(inflater.inflate(deflated, sample.length), sample) !== 0) return null;
    }
    return inflater;
  } catch {
    return null;
  }
}

/** The portable path with the same contract. */
export const streamInflater: ReusedInflater = {
  inflate(input, size) {
    const out = inflateSync(input, { maxOutputLength: size + 1 });
    if (out.length !== size) throw new Error(`the stream inflates to ${out.length} bytes, expected ${size}`);
    return out;
  },
};
