/**
 * Many small zlib streams (git objects) on ONE reused native zlib context per direction.
 *
 * `zlib.inflateSync` / `deflateSync` build a whole stream object (a Duplex, its buffers, a native
 * handle, and for deflate ~256 KiB of fresh state) per call; for a tree of a few hundred bytes
 * that costs several times the work itself, and a merge or a listing inflates thousands of
 * trees, a turn deflates dozens. Here one context is reset between objects and each output
 * buffer is allocated once. This drives the handle behind `zlib.createInflate()` /
 * `createDeflate()` the way Node's own `zlibBufferSync` does (`writeSync`, then the
 * `[availOut, availIn]` write state); those are internals, so the factories check them, run a
 * self-test, and return null if anything differs: the caller then uses the stream functions.
 */
import { Buffer } from 'node:buffer';
import { constants, createDeflate, createInflate, deflateSync, inflateSync } from 'node:zlib';

interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
}

export interface ReusedInflater {
  /** Inflates the stream at the start of `input` (trailing bytes are ignored) to exactly `size` bytes. */
  inflate(input: Uint8Array, size: number): Uint8Array;
}

export interface ReusedDeflater {
  deflate(input: Uint8Array): Uint8Array;
}

/** One native context: a single Z_FINISH write, errors reported through onerror, then a reset. */
class Context {
  private failure: string | null = null;

  constructor(
    private readonly handle: ZlibHandle,
    private readonly state: Uint32Array,
  ) {
    handle.onerror = (message) => {
      this.failure = message;
    };
  }

  /** Runs the whole input into `out`; returns the room left in `out`. */
  run(input: Uint8Array, out: Uint8Array): number {
    this.failure = null;
    try {
      this.handle.writeSync(constants.Z_FINISH, input, 0, input.length, out, 0, out.length);
    } finally {
      this.handle.reset();
    }
    // Node reports a stream cut short ("unexpected end of file") and bad data through onerror.
    if (this.failure !== null) throw new Error(this.failure);
    return this.state[0]!;
  }
}

class ContextInflater implements ReusedInflater {
  constructor(private readonly context: Context) {}

  inflate(input: Uint8Array, size: number): Uint8Array {
    // One byte of room more than expected: a longer stream fills it, a shorter one leaves more.
    const out = Buffer.allocUnsafe(size + 1);
    const produced = size + 1 - this.context.run(input, out);
    if (produced !== size) throw new Error(`the stream inflates to ${produced > size ? 'more than ' : ''}${produced} bytes, expected ${size}`);
    return out.subarray(0, size);
  }
}

class ContextDeflater implements ReusedDeflater {
  constructor(private readonly context: Context) {}

  deflate(input: Uint8Array): Uint8Array {
    // Above zlib's deflateBound (stored blocks at worst, plus header and checksum).
    const bound = input.length + (input.length >>> 10) + 64;
    const out = Buffer.allocUnsafe(bound);
    const left = this.context.run(input, out);
    // A full buffer would mean the stream did not fit; it always does below the bound.
    if (left === 0) return deflateSync(input, { level: DEFLATE_LEVEL });
    return out.subarray(0, bound - left);
  }
}

/** git's default for loose objects (core.looseCompression); gc repacks them later. */
export const DEFLATE_LEVEL = 1;

function contextOf(engine: unknown): Context | null {
  const { _handle: handle, _writeState: state } = engine as { _handle?: ZlibHandle; _writeState?: Uint32Array };
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return null;
  return new Context(handle, state);
}

const SAMPLE = Buffer.from('tree 0\0forge: a self-test of the reused zlib context');

/** A reused inflater, or null when this Node's zlib internals are not the expected ones. */
export function createReusedInflater(): ReusedInflater | null {
  try {
    const context = contextOf(createInflate());
    if (context === null) return null;
    const inflater = new ContextInflater(context);
    // With trailing bytes, twice (the reset must work).
    const deflated = Buffer.concat([deflateSync(SAMPLE), Buffer.from([1, 2, 3])]);
    for (let i = 0; i < 2; i++) if (Buffer.compare(inflater.inflate(deflated, SAMPLE.length), SAMPLE) !== 0) return null;
    return inflater;
  } catch {
    return null;
  }
}

/** A reused deflater at DEFLATE_LEVEL, or null when this Node's zlib internals are not the expected ones. */
export function createReusedDeflater(): ReusedDeflater | null {
  try {
    const context = contextOf(createDeflate({ level: DEFLATE_LEVEL }));
    if (context === null) return null;
    const deflater = new ContextDeflater(context);
    // Twice (the reset must work), each output a stream zlib reads back.
    for (let i = 0; i < 2; i++) if (Buffer.compare(inflateSync(deflater.deflate(SAMPLE)), SAMPLE) !== 0) return null;
    return deflater;
  } catch {
    return null;
  }
}

/** The portable paths with the same contracts. */
export const streamInflater: ReusedInflater = {
  inflate(input, size) {
    const out = inflateSync(input, { maxOutputLength: size + 1 });
    if (out.length !== size) throw new Error(`the stream inflates to ${out.length} bytes, expected ${size}`);
    return out;
  },
};

export const streamDeflater: ReusedDeflater = {
  deflate: (input) => deflateSync(input, { level: DEFLATE_LEVEL }),
};
