/**
 * CLI output: exactly one JSON document on stdout with --json, readable text otherwise; a
 * failure is one line on stderr naming the stable error code, and an exit code by error kind.
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { ForgeError, toForgeError, type ErrorKind } from '../errors';
import { cliGlobals } from './globals';

export interface CommonOptions {
  repo?: string;
  json?: boolean;
}

/** By kind; 5 is EXIT_TOOL_CALLS_FAILED. Only `internal` (a bug in Forge) exits 1. */
export const EXIT_CODES: Record<ErrorKind, number> = { internal: 1, user: 2, conflict: 3, unsupported: 4, remote: 6, corrupt: 7 };

/**
 * `forge turn` / `forge run`: the turn was committed, but some of its tool calls failed (the
 * model, or the calls file, gets their errors; a script should not take it for a clean run).
 */
export const EXIT_TOOL_CALLS_FAILED = 5;

/**
 * What a command prints: with --json the document; otherwise its text, unless the text only
 * reports what was done (`report`) and --quiet asks for silence.
 */
export function emit(options: CommonOptions, value: unknown, text: () => string, kind: 'result' | 'report' = 'result'): void {
  if (options.json) process.stdout.write(JSON.stringify(value) + '\n');
  else if (kind === 'report' && cliGlobals.quiet) return;
  else {
    const out = text();
    if (out !== '') process.stdout.write(out.endsWith('\n') ? out : out + '\n');
  }
}

/** Warnings of an operation that went on (a skipped remote ref, a followed redirect), on stderr; already escaped by whoever quoted remote data. */
export function warn(warnings: readonly string[]): void {
  for (const warning of warnings) process.stderr.write(`forge: warning: ${warning}\n`);
}

/**
 * Thrown by a command that has already reported its failure (forge run writes it as JSON Lines
 * events): main exits with this code and prints nothing more.
 */
export class ReportedFailure extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'ReportedFailure';
  }
}

export function reportError(error: unknown, json: boolean): number {
  const forgeError = error instanceof ForgeError ? error : toForgeError(error);
  const hint = forgeError.hint ? ` (hint: ${forgeError.hint})` : '';
  process.stderr.write(`forge: error ${forgeError.code}: ${forgeError.message.replace(/\n/g, ' ')}${hint}\n`);
  if (json) process.stdout.write(JSON.stringify({ error: forgeError.toJSON() }) + '\n');
  return EXIT_CODES[forgeError.kind];
}

/** A file an option names (or - for standard input); a missing or unreadable one is the user's error. */
export async function readInput(source: string, flag = 'input'): Promise<string> {
  return (await readInputBytes(source, flag)).toString('utf8');
}

/** readInput's bytes, undecoded (one copy: a redirected file is read at its size). */
export async function readInputBytes(source: string, flag = 'input'): Promise<Buffer> {
  // Standard input redirected from a file: read at its size, not in chunks then joined.
  if (source === '-' && fstatSync(0).isFile()) return readFileSync(0);
  if (source !== '-') {
    return readFile(source).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'it is a directory' : (error.code ?? error.message);
      throw new ForgeError('INVALID_ARGUMENT', `Cannot read ${flag} ${source}: ${why}.`, { hint: `${flag} takes a file path, or - for standard input.` });
    });
  }
  return readStdinPipe();
}

/** Beyond this much, piped input goes to a temporary file first. */
const PIPE_IN_MEMORY_BYTES = 16 << 20;

/**
 * Standard input from a pipe, whose size is known only at its end. Up to 16 MiB it is joined in
 * memory; a larger input is spilled to a temporary file as it arrives and read back at its
 * size, so a 100 MB calls file is held once, not as its chunks and their join at the same time.
 */
async function readStdinPipe(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let held = 0;
  let spill: { dir: string; fd: number } | null = null;
  try {
    for await (const chunk of process.stdin) {
      const bytes = chunk as Buffer;
      if (spill === null && held + bytes.length <= PIPE_IN_MEMORY_BYTES) {
        chunks.push(bytes);
        held += bytes.length;
        continue;
      }
      if (spill === null) {
        const dir = mkdtempSync(join(tmpdir(), 'forge-stdin-'));
        spill = { dir, fd: openSync(join(dir, 'input'), 'w') };
        for (const earlier of chunks.splice(0)) writeAll(spill.fd, earlier);
      }
      writeAll(spill.fd, bytes);
    }
    if (spill === null) return Buffer.concat(chunks);
    closeSync(spill.fd);
    spill.fd = -1;
    return readFileSync(join(spill.dir, 'input'));
  } finally {
    if (spill !== null) {
      if (spill.fd >= 0) closeSync(spill.fd);
      rmSync(spill.dir, { recursive: true, force: true });
    }
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

export function shortOid(oid: string): string {
  return oid.slice(0, 12);
}
