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
  const errno = errnoCodeOf(error);
  const code = errno === undefined ? undefined : ERRNO_CODES[errno];
  if (code !== undefined) return new ForgeError(code, message, { cause: error, data: { errno }, hint: ERRNO_HINTS[code] });
  return new ForgeError(fallbackCode, message, { cause: error });
}

/** File-system conditions a user can act on get their own codes, whatever layer met them. */
const ERRNO_CODES: Record<string, ErrorCode> = { ENOSPC: 'DISK_FULL', EDQUOT: 'DISK_FULL', EROFS: 'READ_ONLY_FS', EACCES: 'PERMISSION_DENIED', EPERM: 'PERMISSION_DENIED' };
const ERRNO_HINTS: Partial<Record<ErrorCode, string>> = {
  DISK_FULL: 'Free space on the disk that holds the repository, then retry: pending changes already acknowledged are kept in the journal.',
  READ_ONLY_FS: 'The repository can be read but not written here; run forge where the repository is writable.',
  PERMISSION_DENIED: 'Check the ownership and permissions of the repository\'s .git directory.',
};

function errnoCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}
