/** Retries, backoff, Retry-After and the HTTP error mapping, with an injected fetch (no sockets). */
import { describe, expect, it } from 'vitest';
import { abortableSleep, backoffDelay, parseRetryAfter, postJson, retryOptions, serverMessage, type FetchLike } from '../../../src/agent/providers';

interface Planned {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Throw like fetch does on a network failure. */
  network?: boolean;
}

function fakeFetch(plan: Planned[]): { fetch: FetchLike; calls: Array<{ url: string; headers: Record<string, string>; body: string }> } {
  const calls: Array<{ url: string; headers: Record<string, string>; body: string }> = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, headers: init.headers, body: init.body });
    const next = plan.shift();
    if (!next) throw new Error(`unexpected request ${calls.length}`);
    if (next.network) throw new TypeError('fetch failed');
    const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body ?? {});
    return new Response(text, { status: next.status ?? 200, headers: next.headers ?? {} });
  };
  return { fetch, calls };
}

const sleeps: number[] = [];
const retry = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5, maxAttempts: 3, baseDelayMs: 100 };
const request = { label: 'Test provider', url: 'http://127.0.0.1:1/v1/x', headers: { authorization: 'Bearer sk-secret' }, body: { a: 1 }, authHint: 'Check TEST_KEY.' };

describe('backoff', () => {
  it('doubles from the base delay, capped, with jitter in [0.5, 1)', () => {
    const options = retryOptions({ baseDelayMs: 500, maxDelayMs: 3000, random: () => 0 });
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, options))).toEqual([250, 500, 1000, 1500, 1500]);
    const high = retryOptions({ baseDelayMs: 500, maxDelayMs: 3000, random: () => 0.999 });
    expect(backoffDelay(1, high)).toBe(500);
  });

  it('prefers the server Retry-After, capped', () => {
    const options = retryOptions({ maxRetryAfterMs: 5000 });
    expect(backoffDelay(1, options, 2000)).toBe(2000);
    expect(backoffDelay(1, options, 60_000)).toBe(5000);
  });

  it('reads Retry-After in seconds or as a date, and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 01 Jan 2024 00:00:07 GMT' }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({}))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it('refuses maxAttempts below 1', () => {
    expect(() => retryOptions({ maxAttempts: 0 })).toThrow(/maxAttempts/);
  });

  it('sleeps abortably', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = abortableSleep(10_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ code: 'AGENT_CANCELLED' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('postJson', () => {
  it('returns the parsed body of a 2xx answer, sending JSON with the headers', async () => {
    const { fetch, calls } = fakeFetch([{ body: { ok: true } }]);
    expect(await postJson(request, { fetch, retry })).toEqual({ ok: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer sk-secret' });
    expect(JSON.parse(calls[0]!.body)).toEqual({ a: 1 });
  });

  it('retries 429 and 5xx with backoff (Retry-After first), then succeeds', async () => {
    sleeps.length = 0;
    const { fetch, calls } = fakeFetch([{ status: 429, headers: { 'retry-after': '1' } }, { status: 503 }, { body: { ok: 1 } }]);
    expect(await postJson(request, { fetch, retry })).toEqual({ ok: 1 });
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([1000, 150]);
  });

  it('retries network failures', async () => {
    const { fetch, calls } = fakeFetch([{ network: true }, { body: { ok: 2 } }]);
    expect(await postJson(request, { fetch, retry })).toEqual({ ok: 2 });
    expect(calls).toHaveLength(2);
  });

  it('gives PROVIDER_UNAVAILABLE after the last attempt, naming the last problem', async () => {
    const { fetch, calls } = fakeFetch([{ status: 500 }, { status: 502 }, { status: 500, body: { error: { message: 'overloaded' } } }]);
    const error = await postJson(request, { fetch, retry }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', data: { attempts: 3, status: 500 } });
    expect((error as Error).message).toMatch(/after 3 attempt\(s\); last: HTTP 500: overloaded/);
    expect(calls).toHaveLength(3);
  });

  it('maps 401 and 403 to PROVIDER_AUTH at once (no retry), without the key in the message', async () => {
    for (const status of [401, 403]) {
      const { fetch, calls } = fakeFetch([{ status, body: { error: { message: 'Incorrect API key provided' } } }]);
      const error = await postJson(request, { fetch, retry }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'PROVIDER_AUTH', kind: 'user', hint: 'Check TEST_KEY.' });
      expect((error as Error).message).toContain('Incorrect API key provided');
      expect((error as Error).message).not.toContain('sk-secret');
      expect(calls).toHaveLength(1);
    }
  });

  it('maps 400 and 404 to PROVIDER_BAD_REQUEST with the server message, no retry', async () => {
    const { fetch, calls } = fakeFetch([{ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } } }]);
    const error = await postJson(request, { fetch, retry }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', data: { status: 400 } });
    expect((error as Error).message).toContain('invalid_request_error: max_tokens: too large');
    expect(calls).toHaveLength(1);
    const notFound = fakeFetch([{ status: 404, body: 'no such route' }]);
    await expect(postJson(request, { fetch: notFound.fetch, retry })).rejects.toMatchObject({ code: 'PROVIDER_BAD_REQUEST', hint: 'Check the base URL and the model name.' });
  });

  it('says PROVIDER_BAD_RESPONSE for a 200 that is not JSON', async () => {
    const { fetch } = fakeFetch([{ body: '<html>proxy</html>' }]);
    await expect(postJson(request, { fetch, retry })).rejects.toMatchObject({ code: 'PROVIDER_BAD_RESPONSE' });
  });

  it('stops at once when the signal is aborted, also during a backoff', async () => {
    const controller = new AbortController();
    const { fetch, calls } = fakeFetch([{ status: 500 }, { body: {} }]);
    const sleeping = postJson({ ...request, signal: controller.signal }, { fetch, retry: { maxAttempts: 3, baseDelayMs: 60_000 } });
    setTimeout(() => controller.abort(), 20);
    await expect(sleeping).rejects.toMatchObject({ code: 'AGENT_CANCELLED' });
    expect(calls).toHaveLength(1);
  });

  it('times out an attempt that does not answer and retries it', async () => {
    const calls: number[] = [];
    const fetch: FetchLike = (_url, init) =>
      new Promise((resolve, reject) => {
        calls.push(calls.length);
        if (calls.length === 1) init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        else resolve(new Response('{"late": false}'));
      });
    expect(await postJson(request, { fetch, retry, timeoutMs: 30 })).toEqual({ late: false });
    expect(calls).toHaveLength(2);
  });
});

describe('serverMessage', () => {
  it('reads OpenAI and Anthropic error bodies, and plain text', () => {
    expect(serverMessage('{"error": {"message": "bad model", "type": "invalid_request_error"}}')).toBe('invalid_request_error: bad model');
    expect(serverMessage('{"error": "nope"}')).toBe('nope');
    expect(serverMessage('  gateway timeout  ')).toBe('gateway timeout');
    expect(serverMessage('')).toBe('(empty body)');
  });
});
