/**
 * The one error type of the engine. Every failure that crosses a module boundary is a ForgeError
 * with a stable SCREAMING_SNAKE code (never renamed once released), a kind that tells the edges
 * how to react (exit code, tool result, MCP isError), a message a model can act on, structured
 * data, and an optional hint saying what to do next.
 */
import { ERROR_CODES, type ErrorCode, type ErrorKind } from './codes';

export interface ForgeErrorOptions {
  data?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export class ForgeError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly data: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: ForgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ForgeError';
    this.code = code;
    this.kind = ERROR_CODES[code].kind;
    this.data = options.data ?? {};
    if (options.hint !== undefined) this.hint = options.hint;
  }

  /** A plain object for JSON output (CLI --json, tool results, MCP). */
  toJSON(): { code: ErrorCode; kind: ErrorKind; message: string; data?: Record<string, unknown>; hint?: string } {
    const out: { code: ErrorCode; kind: ErrorKind; message: string; data?: Record<string, unknown>; hint?: string } = {
      code: this.code,
      kind: this.kind,
      message: this.message,
    };
    if (Object.keys(this.data).length > 0) out.data = this.data;
    if (this.hint !== undefined) out.hint = this.hint;
    return out;
  }
}

export function isForgeError(value: unknown, code?: ErrorCode): value is ForgeError {
  return value instanceof ForgeError && (code === undefined || value.code === code);
}

/** Wraps anything thrown by a dependency so nothing above the boundary sees a raw error. */
export function toForgeError(error: unknown, fallbackCode: ErrorCode = 'INTERNAL'): ForgeError {
  if (error instanceof ForgeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ForgeError(fallbackCode, message, { cause: error });
}
