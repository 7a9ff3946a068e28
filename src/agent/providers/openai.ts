/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama, ...):
 * POST {baseUrl}/chat/completions with the tools in strict function form, assistant tool calls
 * as `tool_calls` (arguments as a JSON string) and results as `tool` messages.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { postJson, type HttpOptions } from './http';
import type { ChatMessage, ChatRequest, ChatResponse, FinishReason, Provider, ProviderToolCall } from './types';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiProviderOptions extends HttpOptions {
  apiKey: string;
  model: string;
  /** Default https://api.openai.com/v1 (OpenRouter: https://openrouter.ai/api/v1). */
  baseUrl?: string;
  /** Extra headers (e.g. OpenRouter's HTTP-Referer / X-Title). */
  headers?: Record<string, string>;
}

const ToolCallWire = z.object({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});

const ResponseWire = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(ToolCallWire).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish(),
});

/** Tool-call arguments: the parsed object, or the raw text when it is not JSON (the registry then says so). */
export function parseArguments(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toWire(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) } })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function finishOf(reason: string | null | undefined, calls: number): FinishReason {
  if (calls > 0) return 'tool_calls';
  if (reason === 'stop' || reason === 'end_turn' || reason === null || reason === undefined) return 'end_turn';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

export class OpenAiProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  private readonly url: string;

  constructor(private readonly options: OpenAiProviderOptions) {
    if (!options.apiKey) throw new ForgeError('PROVIDER_NOT_CONFIGURED', 'The OpenAI-compatible provider needs an API key.', { hint: 'Set OPENAI_API_KEY.' });
    if (!options.model) throw new ForgeError('PROVIDER_NOT_CONFIGURED', 'The OpenAI-compatible provider needs a model name.', { hint: 'Pass --model (or set OPENAI_MODEL).' });
    this.model = options.model;
    this.url = `${(options.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  }

  /** The request body for a chat request (exported for tests and debugging). */
  body(request: ChatRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: [...(request.system ? [{ role: 'system', content: request.system }] : []), ...request.messages.map(toWire)],
    };
    if (request.tools.openai.length > 0) body.tools = request.tools.openai;
    if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
    return body;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    const raw = await postJson(
      {
        label: 'OpenAI-compatible provider',
        url: this.url,
        headers: { authorization: `Bearer ${this.options.apiKey}`, ...this.options.headers },
        body: this.body(request),
        ...(request.signal ? { signal: request.signal } : {}),
        authHint: 'Check OPENAI_API_KEY (and --base-url / OPENAI_BASE_URL: the key must belong to that server).',
      },
      this.options,
    );
    const parsed = ResponseWire.safeParse(raw);
    if (!parsed.success) {
      throw new ForgeError('PROVIDER_BAD_RESPONSE', `OpenAI-compatible provider at ${this.url} answered without a chat completion: ${JSON.stringify(raw).slice(0, 300)}`, { data: { url: this.url } });
    }
    const choice = parsed.data.choices[0]!;
    const toolCalls: ProviderToolCall[] = (choice.message.tool_calls ?? []).map((call, i) => ({
      id: call.id || `call_${i + 1}`,
      name: call.function.name,
      args: parseArguments(call.function.arguments),
    }));
    const response: ChatResponse = {
      text: choice.message.content ?? '',
      toolCalls,
      finish: finishOf(choice.finish_reason, toolCalls.length),
      usage: { inputTokens: parsed.data.usage?.prompt_tokens ?? 0, outputTokens: parsed.data.usage?.completion_tokens ?? 0 },
    };
    if (parsed.data.model) response.model = parsed.data.model;
    return response;
  }
}
