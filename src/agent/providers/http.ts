/**
 * JSON over HTTP for the providers: one POST with retries (429, 408, 5xx and network failures,
 * with backoff and Retry-After), a per-attempt timeout, cancellation, and the mapping of HTTP
 * failures to stable codes: 401/403 PROVIDER_AUTH, other 4xx PROVIDER_BAD_REQUEST (with the
 * server's own message), exhausted retries PROVIDER_UNAVAILABLE. Uses the global fetch (Node 20,
 * browsers) unless one is injected. API keys never appear in errors.
 */
import { ForgeError } from '../../errors';
import { backoffDelay, cancelled, parseRetryAfter, retryOptions, type RetryOptions } from './retry';

export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<Response>;

export interface HttpOptions {
  fetch?: FetchLike;
  retry?: Partial<RetryOptions>;
  /** Per attempt. Default 10 minutes (long generations). */
  timeoutMs?: number;
}

export interface PostJsonRequest {
  /** For messages: "OpenAI-compatible provider", "Anthropic provider". */
  label: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  /** Hint for 401/403, e.g. "Check OPENAI_API_KEY." */
  authHint: string;
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_ERROR_TEXT = 500;

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The server's own error message: OpenAI {error: {message}}, Anthropic {error: {type, message}}, or the text. */
export function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    if (typeof body.error === 'string') return body.error.slice(0, MAX_ERROR_TEXT);
    const message = body.error?.message ?? body.message;
    if (typeof message === 'string') {
      const type = typeof body.error === 'object' && typeof body.error?.type === 'string' ? `${body.error.type}: ` : '';
      return `${type}${message}`.slice(0, MAX_ERROR_TEXT);
    }
  } catch {
    // Not JSON: show the text.
  }
  return text.trim().slice(0, MAX_ERROR_TEXT) || '(empty body)';
}

/** Aborts when either signal does (AbortSignal.any is not everywhere yet). */
function linkedController(outer: AbortSignal | undefined): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  if (!outer) return { controller, dispose: () => {} };
  if (outer.aborted) controller.abort(outer.reason);
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => outer.removeEventListener('abort', onAbort) };
}

export async function postJson(request: PostJsonRequest, options: HttpOptions = {}): Promise<unknown> {
  const retry = retryOptions(options.retry);
  const doFetch: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body = JSON.stringify(request.body);
  let lastProblem = '';
  let lastStatus: number | null = null;
  for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
    if (request.signal?.aborted) throw cancelled();
    const { controller, dispose } = linkedController(request.signal);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let retryAfterMs: number | undefined;
    try {
      const response = await doFetch(request.url, { method: 'POST', headers: { 'content-type': 'application/json', ...request.headers }, body, signal: controller.signal });
      const text = await response.text();
      if (response.ok) {
        try {
          return JSON.parse(text);
        } catch {
          throw new ForgeError('PROVIDER_BAD_RESPONSE', `${request.label} at ${request.url} answered HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, {
            data: { url: request.url, status: response.status },
          });
        }
      }
      const message = serverMessage(text);
      if (response.status === 401 || response.status === 403) {
        throw new ForgeError('PROVIDER_AUTH', `${request.label} at ${request.url} rejected the credentials (HTTP ${response.status}): ${message}`, {
          data: { url: request.url, status: response.status },
          hint: request.authHint,
        });
      }
      if (!isRetryableStatus(response.status)) {
        throw new ForgeError('PROVIDER_BAD_REQUEST', `${request.label} at ${request.url} rejected the request (HTTP ${response.status}): ${message}`, {
          data: { url: request.url, status: response.status, message },
          hint: response.status === 404 ? 'Check the base URL and the model name.' : 'Check the model name and the options; the message above is the server\'s own.',
        });
      }
      lastStatus = response.status;
      lastProblem = `HTTP ${response.status}: ${message}`;
      retryAfterMs = parseRetryAfter(response.headers);
    } catch (error) {
      if (error instanceof ForgeError) throw error;
      if (request.signal?.aborted) throw cancelled();
      lastStatus = null;
      lastProblem = timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(timer);
      dispose();
    }
    if (attempt < retry.maxAttempts) await retry.sleep(backoffDelay(attempt, retry, retryAfterMs), request.signal);
  }
  throw new ForgeError('PROVIDER_UNAVAILABLE', `${request.label} at ${request.url} is unavailable after ${retry.maxAttempts} attempt(s); last: ${lastProblem}`, {
    data: { url: request.url, attempts: retry.maxAttempts, status: lastStatus },
    hint: 'Try again later, or use another provider or base URL.',
  });
}
