/**
 * A local HTTP server on 127.0.0.1 (port 0) that plays a model API for provider tests: each
 * request gets the next planned answer (a status, headers, a JSON or text body, or a dropped
 * connection), every request is recorded, and a request beyond the plan is answered 599 and
 * flagged, so tests can assert exact request counts. No other network is used.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

export interface PlannedAnswer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  /** Close the socket without answering (a network failure for the client). */
  drop?: boolean;
  /** Wait before answering (ms); the answer is skipped if the client went away. */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (or the raw text when it is not JSON). */
  body: any;
}

export interface MockServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: RecordedRequest[];
  /** Requests that found no planned answer. */
  unexpected: number;
  /** Adds answers at the end of the plan. */
  plan(...answers: Array<PlannedAnswer | ((request: RecordedRequest) => PlannedAnswer)>): void;
  close(): Promise<void>;
}

export async function startMockServer(): Promise<MockServer> {
  const queue: Array<PlannedAnswer | ((request: RecordedRequest) => PlannedAnswer)> = [];
  const requests: RecordedRequest[] = [];
  const state = { unexpected: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the text
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const next = queue.shift();
      if (next === undefined) {
        state.unexpected++;
        res.writeHead(599, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'mock: no answer planned for this request' } }));
        return;
      }
      const answer = typeof next === 'function' ? next(recorded) : next;
      const send = () => {
        if (answer.drop) {
          req.socket.destroy();
          return;
        }
        if (res.destroyed) return;
        const payload = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? '');
        res.writeHead(answer.status ?? 200, { 'content-type': answer.json !== undefined ? 'application/json' : 'text/plain', ...answer.headers }).end(payload);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get unexpected() {
      return state.unexpected;
    },
    plan: (...answers) => void queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An OpenAI chat completion body. */
export function openAiCompletion(message: { content?: string | null; tool_calls?: Array<{ id: string; name: string; arguments: string }> }, usage = { prompt_tokens: 100, completion_tokens: 20 }, finish?: string) {
  const calls = message.tool_calls ?? [];
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    model: 'mock-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: message.content ?? null,
          ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
        finish_reason: finish ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** An Anthropic Messages body. */
export function anthropicMessage(blocks: Array<{ text: string } | { id: string; name: string; input: unknown }>, usage: Record<string, number> = { input_tokens: 100, output_tokens: 20 }, stop?: string) {
  const content = blocks.map((b) => ('text' in b ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: b.input }));
  return {
    id: 'msg_mock',
    type: 'message',
    role: 'assistant',
    model: 'mock-claude',
    content,
    stop_reason: stop ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage,
  };
}

/** A fresh mock server for every test of the file, closed after it: `withMockServer((s) => (server = s))`. */
export function withMockServer(set: (server: MockServer) => void): void {
  let current: MockServer | undefined;
  beforeEach(async () => {
    current = await startMockServer();
    set(current);
  });
  afterEach(async () => {
    await current?.close();
  });
}

/** The source file the provider round-trip tests have a model edit. */
export const AVERAGE_JS = 'export function average(values) {\n  return sum(values) / values.length;\n}\n';
