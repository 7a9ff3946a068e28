/**
 * Retries with exponential backoff and jitter, for transient provider failures (429, 5xx,
 * network errors). A server's Retry-After wins over the computed delay (capped). Sleeping is
 * abortable, so cancelling a run never waits out a backoff.
 */
import { ForgeError } from '../../errors';

export interface RetryOptions {
  /** Attempts in all, the first included. Default 4 (three retries). */
  maxAttempts: number;
  /** Delay before the first retry; doubled for each further one. Default 500 ms. */
  baseDelayMs: number;
  /** Cap of a computed delay. Default 8 s. */
  maxDelayMs: number;
  /** Cap of a server's Retry-After. Default 60 s. */
  maxRetryAfterMs: number;
  /** Injected in tests. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1); injected in tests. */
  random: () => number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
};

export function retryOptions(partial: Partial<RetryOptions> = {}): RetryOptions {
  const options = { ...DEFAULT_RETRY, ...partial };
  if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1) {
    throw new ForgeError('INVALID_ARGUMENT', `maxAttempts must be a whole number of at least 1 (got ${options.maxAttempts}).`);
  }
  return options;
}

/**
 * The wait before retry number `retry` (1 for the first retry): the server's Retry-After when
 * given (capped at maxRetryAfterMs), else base * 2^(retry-1) capped at maxDelayMs, scaled by a
 * jitter factor in [0.5, 1).
 */
export function backoffDelay(retry: number, options: RetryOptions, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return Math.min(retryAfterMs, options.maxRetryAfterMs);
  const exponential = Math.min(options.baseDelayMs * 2 ** (retry - 1), options.maxDelayMs);
  return Math.round(exponential * (0.5 + options.random() / 2));
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null }, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms.trim());
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function cancelled(): ForgeError {
  return new ForgeError('AGENT_CANCELLED', 'The request was cancelled.');
}
