/**
 * `forge turn --calls`: the JSON array of tool calls, checked whole before anything runs, then
 * (past its first 4 MiB) parsed again one call at a time as each runs. A calls file is read by position (never held
 * whole); standard input is held as its bytes. So a 10,000-call turn never holds every call's
 * parsed content at once beside the input (only what the recorded calls keep), and the check's
 * garbage is one call's.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { ForgeError } from '../errors';
import { parseJsonBytes } from '../tools/json-bytes';
import { readInputBytes } from './io';
import { CallSchema, isCall, LARGE_STRING_BYTES, parseCalls, type CallInput } from './turn-calls';

export { parseCalls, type CallInput };
/** Input up to this size is parsed whole, once; beyond it, parsed calls are kept from the check up to this much (the rest parsed again as they run). */
const KEEP_PARSED_BYTES = 4 << 20;
/** The file is scanned for its calls' bounds in reads of this size. */
const SCAN_BYTES = 1 << 20;

export interface CallsInput {
  readonly length: number;
  /** Call `i`, parsed from the input now. */
  call(i: number): CallInput;
  close(): void;
}

/**
 * Opens and checks `--calls` (a path, or - for standard input); INVALID_ARGUMENT with the same
 * messages as a whole parse. `parseWholeUpTo`: input up to this size is parsed whole (tests pass 0).
 */
export async function openCalls(source: string, options: { parseWholeUpTo?: number } = {}): Promise<CallsInput> {
  const wholeUpTo = options.parseWholeUpTo ?? KEEP_PARSED_BYTES;
  const fd = source === '-' ? -1 : openFile(source);
  if (fd === -1 || fstatSync(fd).size <= wholeUpTo) {
    if (fd !== -1) closeSync(fd);
    // Standard input, a usual turn's calls (parsed whole, once), or a path readInputBytes says is not readable.
    const bytes = await readInputBytes(source, '--calls');
    if (bytes.length <= wholeUpTo) return inMemory(parseCalls(bytes));
    return checked(fromBytes(bytes), async () => bytes);
  }
  try {
    return checked(fromFile(fd), async () => readWhole(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

interface Source {
  /** [start, end) byte offsets of each element, or null when the bytes are not a plain array of objects. */
  bounds: Float64Array | null;
  read(start: number, end: number): Buffer;
  close(): void;
}

/**
 * Every call is parsed and checked once; on any failure the whole input's parse gives the error
 * (or, if it passes, the calls). Calls are kept as checked, until they run, while they total
 * KEEP_PARSED_BYTES of input (a usual turn is parsed once), and so is any call of a megabyte or
 * more (its big strings are bytes: Utf8Text); the others are read and parsed again as they run.
 */
async function checked(source: Source, whole: () => Promise<Buffer>): Promise<CallsInput> {
  const bounds = source.bounds;
  const kept = new Map<number, CallInput>();
  let keptBytes = 0;
  let ok = bounds !== null;
  for (let i = 0; ok && i < bounds!.length / 2; i++) {
    const [start, end] = [bounds![2 * i]!, bounds![2 * i + 1]!];
    const call = parseCall(source.read(start, end));
    // The first calls while they fit the budget (a prefix: the rest are then read in order).
    if (end - start < LARGE_STRING_BYTES) keptBytes += end - start;
    if (call !== null && (end - start >= LARGE_STRING_BYTES || keptBytes <= KEEP_PARSED_BYTES)) kept.set(i, call);
    ok = call !== null;
  }
  if (!ok) {
    kept.clear();
    const calls = parseCalls(await whole());
    source.close();
    return inMemory(calls);
  }
  return {
    length: bounds!.length / 2,
    call(i) {
      const held = kept.get(i);
      if (held !== undefined) {
        kept.delete(i);
        return held;
      }
      const call = parseCall(source.read(bounds![2 * i]!, bounds![2 * i + 1]!));
      if (call === null) throw new ForgeError('INVALID_ARGUMENT', `--calls changed while the turn ran: call ${i} is no longer a valid call; the calls before it ran.`);
      return call;
    },
    close: () => source.close(),
  };
}

/** Calls parsed whole; each is let go once it was asked for. */
function inMemory(calls: Array<CallInput | undefined>): CallsInput {
  return {
    length: calls.length,
    call(i) {
      const call = calls[i]!;
      calls[i] = undefined;
      return call;
    },
    close: () => undefined,
  };
}

function parseCall(bytes: Buffer): CallInput | null {
  try {
    const raw: unknown = isUtf8(bytes) ? parseJsonBytes(bytes, { largeStringBytes: LARGE_STRING_BYTES }) : JSON.parse(bytes.toString('utf8'));
    if (isCall(raw)) return raw;
    const parsed = CallSchema.safeParse(raw);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function openFile(path: string): number {
  try {
    return openSync(path, 'r');
  } catch {
    // readInputBytes says why, with its own message.
    return -1;
  }
}

function fromBytes(bytes: Buffer): Source {
  const scan = new BoundsScanner();
  scan.feed(bytes, 0);
  return { bounds: scan.finish(), read: (start, end) => Buffer.from(bytes.subarray(start, end)), close: () => undefined };
}

function fromFile(fd: number): Source {
  const scan = new BoundsScanner();
  const chunk = Buffer.allocUnsafe(SCAN_BYTES);
  for (let at = 0; ; ) {
    const n = readSync(fd, chunk, 0, chunk.length, at);
    if (n === 0) break;
    if (!scan.feed(chunk.subarray(0, n), at)) break;
    at += n;
  }
  return {
    bounds: scan.finish(),
    read(start, end) {
      const bytes = Buffer.allocUnsafe(end - start);
      for (let got = 0; got < bytes.length; ) {
        const n = readSync(fd, bytes, got, bytes.length - got, start + got);
        if (n === 0) return bytes.subarray(0, got);
        got += n;
      }
      return bytes;
    },
    close: () => closeSync(fd),
  };
}

function readWhole(fd: number): Buffer {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  const n = readSync(fd, bytes, 0, bytes.length, 0);
  return bytes.subarray(0, n);
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function indexOrEnd(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? bytes.length : at;
}

/**
 * Finds the bounds of a top-level array's elements, each an object, in bytes fed in order. Any
 * other shape (or invalid JSON it notices) gives null: the whole parse then says what is wrong.
 */
class BoundsScanner {
  private bounds: number[] = [];
  private state: 'start' | 'first' | 'element' | 'after' | 'comma' | 'end' | 'bad' = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = 0;

  /** false once the input is known not to be a plain array of objects. */
  feed(bytes: Uint8Array, offset: number): boolean {
    // Inside a string: the next quote and backslash, found natively (a 100 MB content is one string).
    let quote = -1;
    let backslash = -1;
    for (let i = 0; i < bytes.length; i++) {
      if (this.inString && !this.escaped) {
        if (quote < i) quote = indexOrEnd(bytes, 0x22, i);
        if (backslash < i) backslash = indexOrEnd(bytes, 0x5c, i);
        i = Math.min(quote, backslash);
        if (i === bytes.length) break;
      }
      const b = bytes[i]!;
      switch (this.state) {
        case 'element':
          if (this.inString) {
            if (this.escaped) this.escaped = false;
            else if (b === 0x5c) this.escaped = true;
            else if (b === 0x22) this.inString = false;
          } else if (b === 0x22) this.inString = true;
          else if (b === 0x7b || b === 0x5b) this.depth++;
          else if (b === 0x7d || b === 0x5d) {
            if (--this.depth === 0) {
              this.bounds.push(this.start, offset + i + 1);
              this.state = 'after';
            }
          }
          break;
        case 'start':
          if (b === 0x5b) this.state = 'first';
          else if (!WS.has(b)) this.state = 'bad';
          break;
        case 'first':
        case 'comma':
          if (b === 0x7b) {
            this.state = 'element';
            this.depth = 1;
            this.start = offset + i;
          } else if (b === 0x5d && this.state === 'first') this.state = 'end';
          else if (!WS.has(b)) this.state = 'bad';
          break;
        case 'after':
          if (b === 0x2c) this.state = 'comma';
          else if (b === 0x5d) this.state = 'end';
          else if (!WS.has(b)) this.state = 'bad';
          break;
        case 'end':
          if (!WS.has(b)) this.state = 'bad';
          break;
        case 'bad':
          return false;
      }
    }
    return this.state !== 'bad';
  }

  finish(): Float64Array | null {
    return this.state === 'end' ? Float64Array.from(this.bounds) : null;
  }
}
