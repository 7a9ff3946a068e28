/**
 * MCP over stdio, one JSON message per line, in place of the SDK's StdioServerTransport, which
 * (1.x) drops malformed messages without an answer and closes the connection for good when its
 * buffer exceeds 10 MiB, even when that is several messages in one read. Here:
 * - each line is judged by incoming.ts: a malformed message with an id gets its JSON-RPC error;
 * - the limit is per message (MAX_MESSAGE_BYTES): a longer line is skipped as it streams in (it is
 *   never held whole), answered with an error, and the lines after it are served;
 * - a line is assembled from its chunks once (no quadratic re-concatenation of a large message).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkIncomingLine, MAX_MESSAGE_BYTES, oversizeReply } from './incoming';

/** How much of an oversize line's start and end is kept to find its id. */
const OVERSIZE_HEAD_BYTES = 4096;

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping the rest of a line over the limit: its first and last bytes and its size so far. */
  private oversize: { head: string; tail: Buffer; bytes: number } | null = null;
  private started = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.size = 0;
    this.oversize = null;
    this.onclose?.();
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(10, start);
      const end = newline === -1 ? data.length : newline;
      this.take(data.subarray(start, end));
      if (newline === -1) return;
      this.endOfLine();
      start = newline + 1;
    }
  };

  /** Part of the current line. */
  private take(piece: Buffer): void {
    if (this.oversize !== null) {
      this.oversize.bytes += piece.length;
      this.oversize.tail = lastBytes(Buffer.concat([this.oversize.tail, piece.subarray(-OVERSIZE_HEAD_BYTES)]));
      return;
    }
    if (this.size + piece.length <= this.maxMessageBytes) {
      if (piece.length > 0) this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    const whole = Buffer.concat([...this.chunks, piece]);
    this.oversize = { head: whole.subarray(0, OVERSIZE_HEAD_BYTES).toString('utf8'), tail: lastBytes(whole), bytes: this.size + piece.length };
    this.chunks = [];
    this.size = 0;
  }

  private endOfLine(): void {
    if (this.oversize !== null) {
      const { head, tail, bytes } = this.oversize;
      this.oversize = null;
      this.reply(oversizeReply(head, bytes, this.maxMessageBytes, tail.toString('utf8').replace(/\r$/, '')), `a message of ${bytes} bytes, over the limit of ${this.maxMessageBytes}`);
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    const incoming = checkIncomingLine(line);
    if (incoming === null) return;
    if (incoming.kind === 'message') {
      this.onmessage?.(incoming.message);
      return;
    }
    for (const reply of incoming.replies) this.reply(reply, incoming.problem);
    if (incoming.replies.length === 0) this.onerror?.(new Error(`ignored a malformed notification: ${incoming.problem}`));
  }

  private reply(error: JSONRPCMessage, problem: string): void {
    this.onerror?.(new Error(`answered a malformed message with an error: ${problem}`));
    this.send(error).catch((failure: unknown) => this.onerror?.(failure instanceof Error ? failure : new Error(String(failure))));
  }
}

/** The last OVERSIZE_HEAD_BYTES of a buffer (a copy, so a large chunk is not kept alive). */
function lastBytes(buffer: Buffer): Buffer {
  return Buffer.from(buffer.subarray(Math.max(0, buffer.length - OVERSIZE_HEAD_BYTES)));
}
