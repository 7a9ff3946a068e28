/**
 * The provider-neutral model interface: a conversation (system text, user / assistant / tool
 * messages), the tools the model may call, and one response (text, tool calls, why it stopped,
 * token usage). OpenAI-compatible chat completions, Anthropic Messages and the scripted
 * provider all implement it; the turn loop knows nothing else about them.
 */
import type { ToolSchemas } from '../../tools';

export interface ProviderToolCall {
  /** The model's id for the call; tool results refer to it. */
  id: string;
  name: string;
  /** The parsed JSON object, or the raw text when the model sent arguments that are not JSON. */
  args: unknown;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ProviderToolCall[] }
  /** The result of one tool call, as the text the model reads. */
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatRequest {
  /** Instructions and context, sent as the system prompt. */
  system: string;
  messages: ChatMessage[];
  /** The tools in both wire forms; each provider sends the one it speaks. Empty: no tools. */
  tools: ToolSchemas;
  /** Upper bound on the response length, in tokens. */
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

/** end_turn: the model answered without tool calls; tool_calls: it wants results; max_tokens: cut off. */
export type FinishReason = 'end_turn' | 'tool_calls' | 'max_tokens' | 'other';

export interface ChatResponse {
  text: string;
  toolCalls: ProviderToolCall[];
  finish: FinishReason;
  usage: Usage;
  /** The model that answered, when the provider says. */
  model?: string;
}

export interface Provider {
  /** 'openai', 'anthropic', 'scripted', ... (recorded in the session state). */
  readonly name: string;
  readonly model?: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}

export const NO_TOOLS: ToolSchemas = { openai: [], anthropic: [] };

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

/**
 * The token estimate used wherever a provider does not count (context budgets, the scripted
 * provider's usage): one token per 4 characters, rounded up. Deterministic and provider-neutral.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
