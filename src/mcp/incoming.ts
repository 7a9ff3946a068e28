/**
 * What the server makes of one line a client sent, before the SDK's Protocol sees it. The SDK
 * drops what does not parse as a JSON-RPC message (the client then waits forever) and answers a
 * request whose params do not fit its method with -32603, as if the server had failed. Here every
 * malformed message that carries an id gets its JSON-RPC error at once (-32700 unparseable,
 * -32600 not a valid request, -32602 params that do not fit the method), and the server goes on
 * serving. Pure: no I/O.
 *
 * When the id cannot be told (unparseable JSON, an id that is not a string or an integer), the
 * error has no `id`: JSON-RPC 2.0 writes `"id": null`, but MCP's schema (and the SDK's client,
 * which would drop such a reply) allow only a string or number there, or no id at all.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** The largest message (one line, without its newline) the server reads: as the SDK's own stdio limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export type Incoming =
  | { kind: 'message'; message: JSONRPCMessage }
  /** Malformed: answer with these errors (none for a malformed notification); `problem` is for the log. */
  | { kind: 'reject'; replies: JSONRPCErrorResponse[]; problem: string };

type Id = string | number;

/** The request methods this server serves, with the schema their params must fit. */
const REQUEST_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validId(value: unknown): Id | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return undefined;
}

export function errorReply(id: Id | undefined, code: ErrorCode, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } };
}

/** Why a parsed object is not a JSON-RPC 2.0 message, in words a client author can act on. */
function invalidRequestReason(value: Record<string, unknown>): string {
  if (value.jsonrpc !== '2.0') return `"jsonrpc" must be "2.0", not ${JSON.stringify(value.jsonrpc) ?? 'missing'}`;
  if ('id' in value && validId(value.id) === undefined) return `"id" must be a string or an integer, not ${JSON.stringify(value.id)}`;
  if (!('method' in value) && !('result' in value) && !('error' in value)) return 'a request needs a "method"';
  if ('method' in value && typeof value.method !== 'string') return '"method" must be a string';
  if ('params' in value && !isPlainObject(value.params)) return '"params" must be an object';
  return 'it is not a JSON-RPC 2.0 request, notification or response';
}

function checkObject(value: unknown): Incoming {
  if (!isPlainObject(value)) {
    const problem = Array.isArray(value) ? 'an empty batch' : `a JSON ${value === null ? 'null' : typeof value}, not an object`;
    return { kind: 'reject', replies: [errorReply(undefined, ErrorCode.InvalidRequest, `Invalid request: ${problem}.`)], problem };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  const id = validId(value.id);
  if (!parsed.success) {
    // By-position params are valid JSON-RPC 2.0 (a structured value): the request is fine, its
    // params do not fit the method (every MCP method takes named params).
    if (value.jsonrpc === '2.0' && typeof value.method === 'string' && Array.isArray(value.params) && id !== undefined) {
      return {
        kind: 'reject',
        replies: [errorReply(id, ErrorCode.InvalidParams, `Invalid params for ${value.method}: params must be an object of named fields, not an array.`)],
        problem: `positional params for ${value.method}`,
      };
    }
    const reason = invalidRequestReason(value);
    // A notification (no id at all) is never answered, malformed or not.
    const answer = 'id' in value || !('method' in value);
    return { kind: 'reject', replies: answer ? [errorReply(id, ErrorCode.InvalidRequest, `Invalid request: ${reason}.`)] : [], problem: reason };
  }
  const message = parsed.data;
  if ('method' in message && 'id' in message && Object.hasOwn(REQUEST_SCHEMAS, message.method)) {
    const fits = REQUEST_SCHEMAS[message.method]!.safeParse(message);
    if (!fits.success) {
      const detail = fits.error.issues.map((i) => `${['params', ...i.path.slice(1)].join('.')}: ${i.message}`).join('; ');
      return { kind: 'reject', replies: [errorReply(id, ErrorCode.InvalidParams, `Invalid params for ${message.method}: ${detail}.`)], problem: `invalid params for ${message.method}` };
    }
  }
  return { kind: 'message', message };
}

/** One line of the stream (without its newline). Blank lines are ignored: null. */
export function checkIncomingLine(line: string): Incoming | null {
  if (line.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { kind: 'reject', replies: [errorReply(undefined, ErrorCode.ParseError, `Parse error: the line is not JSON (${why}).`)], problem: `unparseable line (${why})` };
  }
  if (Array.isArray(value) && value.length > 0) {
    // MCP (2025-06-18) has no batches: each element with an id gets its own error.
    const replies = value.flatMap((element) => {
      const id = isPlainObject(element) ? validId(element.id) : undefined;
      return id === undefined ? [] : [errorReply(id, ErrorCode.InvalidRequest, 'Invalid request: JSON-RPC batches are not supported by MCP; send each message on its own line.')];
    });
    return { kind: 'reject', replies: replies.length > 0 ? replies : [errorReply(undefined, ErrorCode.InvalidRequest, 'Invalid request: JSON-RPC batches are not supported by MCP.')], problem: 'a batch' };
  }
  return checkObject(value);
}

/**
 * The error for a line longer than MAX_MESSAGE_BYTES, which is not read whole. Its id is taken
 * from the line's start when it is a top-level member before `params`, or from its end when it
 * is the last member of the message (`…},"id":7}`: the MCP SDK's own client writes it there).
 */
export function oversizeReply(start: string, bytes: number, limit = MAX_MESSAGE_BYTES, end = ''): JSONRPCErrorResponse {
  const params = start.indexOf('"params"');
  const head = params === -1 ? start : start.slice(0, params);
  const match =
    /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\]|\\.){0,256}")/.exec(head) ??
    // The message's last member: one closing brace after it, and nothing else, ends the line.
    /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/.exec(end);
  let id: Id | undefined;
  if (match && /"method"\s*:/.test(start)) {
    try {
      id = validId(JSON.parse(match[1]!));
    } catch {
      id = undefined;
    }
  }
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  return errorReply(
    id,
    ErrorCode.InvalidRequest,
    `Invalid request: the message is ${bytes} bytes (${mib(bytes)}); this server reads messages of at most ${limit} bytes (${mib(limit)}). Send large content in several smaller calls.`,
  );
}
