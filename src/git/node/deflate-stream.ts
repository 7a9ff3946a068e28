/**
 * One zlib stream of several byte runs, handed to a writer a piece at a time as zlib makes it:
 * neither the runs' concatenation nor the compressed stream is ever held whole. A large object
 * is its header and its content, or a file's old bytes around an edit; deflating a 50 MB blob
 * whole held its 11 MB stream twice (zlib's 16 KiB chunks, then their concatenation), the peak
 * of a big edit. This drives the native handle behind `zlib.createDeflate()` the way Node's own
 * synchronous zlib does (`writeSync`, then the `[availOut, availIn]` write state), as
 * zlib-contexts.ts does; those are internals, so `streamDeflaterAvailable` checks them with a
 * self-test first, and the platform deflates the runs whole (deflate-parts.ts) when they differ.
 */
import { Buffer } from 'node:buffer';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import { DEFLATE_LEVEL } from './zlib-contexts';

interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  onerror: (message: string, errno: number) => void;
}

/** Compressed bytes handed to the writer at a time (a 50 MB text file makes ~11 of them). */
const OUT_BYTES = 1 << 20;
const EMPTY = new Uint8Array(0);

/**
 * Deflates the runs in order as one zlib stream (level DEFLATE_LEVEL), calling `write` with each
 * piece of output as it is made; a piece is valid only during that call. False, with nothing
 * written, when this Node's zlib internals are not the expected ones.
 */
export function deflateRunsInto(runs: readonly Uint8Array[], write: (piece: Uint8Array) => void, outBytes = OUT_BYTES): boolean {
  const engine = createDeflate({ level: DEFLATE_LEVEL });
  const { _handle: handle, _writeState: state } = engine as unknown as { _handle?: ZlibHandle; _writeState?: Uint32Array };
  if (!handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array)) {
    engine.close();
    return false;
  }
  let failure: string | null = null;
  handle.onerror = (message) => {
    failure = message;
  };
  const out = Buffer.allocUnsafe(outBytes);
  const feed = (input: Uint8Array, flush: number): void => {
    let offset = 0;
    let left = input.length;
    for (;;) {
      handle.writeSync(flush, input, offset, left, out, 0, out.length);
      if (failure !== null) throw new Error(failure);
      const [availOut, availIn] = [state[0]!, state[1]!];
      if (availOut < out.length) write(out.subarray(0, out.length - availOut));
      offset += left - availIn;
      left = availIn;
      // Room left in the output: zlib took all the input (and, on Z_FINISH, ended the stream).
      if (availOut !== 0) return;
    }
  };
  try {
    for (const run of runs) if (run.length > 0) feed(run, constants.Z_NO_FLUSH);
    feed(EMPTY, constants.Z_FINISH);
  } finally {
    engine.close();
  }
  return true;
}

let available: boolean | undefined;

/** Whether deflateRunsInto works on this Node: checked once, on runs whose output fills several pieces. */
export function streamDeflaterAvailable(): boolean {
  if (available !== undefined) return available;
  try {
    const runs = [Buffer.from('blob 90\0'), Buffer.from('forge: a self-test of the streamed deflate\n'.repeat(2)), Buffer.alloc(0), Buffer.from([0, 1, 2, 255])];
    const pieces: Buffer[] = [];
    available = deflateRunsInto(runs, (piece) => pieces.push(Buffer.from(piece)), 16) && pieces.length > 1 && Buffer.compare(inflateSync(Buffer.concat(pieces)), Buffer.concat(runs)) === 0;
  } catch {
    available = false;
  }
  return available;
}
