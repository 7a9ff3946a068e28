/**
 * Anthropic Messages: POST {baseUrl}/v1/messages with `x-api-key` and `anthropic-version`,
 * tools as {name, description, input_schema}, assistant tool calls as `tool_use` blocks and
 * results as `tool_result` blocks in the next user message (consecutive messages of one role
 * are merged, as the API requires alternating roles).
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { postJson, type HttpOptions } from './http';
import type { ChatMessage, ChatRequest, ChatResponse, FinishReason, Provider, ProviderToolCall } from './types';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens on every request. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export interface AnthropicProviderOptions extends HttpOptions {
  apiKey: string;
  model: string;
  /** Default https://api.anthropic.com (the /v1/messages path is appended). */
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Default 8192. */
  maxOutputTokens?: number;
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const ResponseWire = z.object({
  model: z.string().optional(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
      z.object({ type: z.string() }),
    ]),
  ),
  stop_reason: z.string().nullish(),
  usage: z
    .object({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_creation_input_tokens: z.number().nullish(),
      cache_read_input_tokens: z.number().nullish(),
    })
    .optional(),
});

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function blocksOf(message: ChatMessage): WireMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content === '' ? [] : [{ type: 'text', text: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
          ...(message.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: asObject(c.args) })),
        ],
      };
    case 'tool':
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }] };
  }
}

/** Alternating roles, no empty messages; tool results before text within a user message. */
export function toAnthropicMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const message of messages.map(blocksOf)) {
    if (message.content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === message.role) last.content.push(...message.content);
    else out.push({ role: message.role, content: [...message.content] });
  }
  for (const message of out) {
    if (message.role === 'user') message.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return out;
}

function finishOf(reason: string | null | undefined, calls: number): FinishReason {
  if (calls > 0 || reason === 'tool_use') return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence' || reason === null || reason === undefined) return 'end_turn';
  if (reason === 'max_tokens') return 'max_tokens';
  return 'other';
}

export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly url: string;

  constructor(private readonly options: AnthropicProviderOptions) {
    if (!options.apiKey) throw new ForgeError('PROVIDER_NOT_CONFIGURED', 'The Anthropic provider needs an API key.', { hint: 'Set ANTHROPIC_API_KEY.' });
    if (!options.model) throw new ForgeError('PROVIDER_NOT_CONFIGURED', 'The Anthropic provider needs a model name.', { hint: 'Pass --model (or set ANTHROPIC_MODEL).' });
    this.model = options.model;
    const base = (options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.url = base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
  }

  body(request: ChatRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.model,
      max_tokens: request.maxOutputTokens ?? this.options.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: toAnthropicMessages(request.messages),
    };
    if (request.system) body.system = request.system;
    if (request.tools.anthropic.length > 0) body.tools = request.tools.anthropic;
    return body;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const raw = await postJson(
      {
        label: 'Anthropic provider',
        url: this.url,
        headers: { 'x-api-key': this.options.apiKey, 'anthropic-version': ANTHROPIC_VERSION, ...this.options.headers },
        body: this.body(request),
        ...(request.signal ? { signal: request.signal } : {}),
        authHint: 'Check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL: the key must belong to that server).',
      },
      this.options,
    );
    const parsed = ResponseWire.safeParse(raw);
    if (!parsed.success) {
      throw new ForgeError('PROVIDER_BAD_RESPONSE', `Anthropic provider at ${this.url} answered without a message: ${JSON.stringify(raw).slice(0, 300)}`, { data: { url: this.url } });
    }
    const text: string[] = [];
    const toolCalls: ProviderToolCall[] = [];
    for (const block of parsed.data.content) {
      if (block.type === 'text' && 'text' in block) text.push(block.text);
      else if (block.type === 'tool_use' && 'id' in block) toolCalls.push({ id: block.id, name: block.name, args: block.input ?? {} });
    }
    const usage = parsed.data.usage;
    const response: ChatResponse = {
      text: text.join(''),
      toolCalls,
      finish: finishOf(parsed.data.stop_reason, toolCalls.length),
      usage: {
        inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0),
        outputTokens: usage?.output_tokens ?? 0,
      },
    };
    if (parsed.data.model) response.model = parsed.data.model;
    return response;
  }
}
