/**
 * The scripted provider: the built-in default, no network, no key. A script is JSON:
 *
 *   {"turns": [{"user": "…", "replies": [{"text"?: "…", "tool_calls"?: [{"tool": NAME, "args": {…}}]}]}]}
 *
 * Each reply is the model's next response in that turn; a reply without tool calls ends the
 * turn (and so does running out of replies). The provider is stateless: it finds its place in
 * the conversation it is sent (the k-th occurrence of a user message is the k-th script turn
 * with that text; the reply is the number of assistant messages since), so a cancelled turn
 * continues where it stopped, in the same process or a later one.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { estimateTokens, type ChatRequest, type ChatResponse, type Provider } from './types';

const ScriptToolCallSchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional(),
});

const ScriptReplySchema = z.strictObject({
  text: z.string().optional(),
  tool_calls: z.array(ScriptToolCallSchema).optional(),
});

const ScriptTurnSchema = z.strictObject({
  user: z.string().min(1),
  replies: z.array(ScriptReplySchema),
});

export const ScriptSchema = z.strictObject({
  /** Free text for people reading the script; ignored by the provider. */
  description: z.string().optional(),
  turns: z.array(ScriptTurnSchema).min(1),
});

export type Script = z.infer<typeof ScriptSchema>;
export type ScriptTurn = z.infer<typeof ScriptTurnSchema>;
export type ScriptReply = z.infer<typeof ScriptReplySchema>;

function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  return out || '(top level)';
}

/** Parses and validates a script; SCRIPT_INVALID names the first problems and where they are. */
export function parseScript(text: string, source = 'the script'): Script {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ForgeError('SCRIPT_INVALID', `${source} is not valid JSON: ${(error as Error).message}`, { data: { source } });
  }
  const parsed = ScriptSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${issuePath(i.path)}: ${i.message}`);
    throw new ForgeError('SCRIPT_INVALID', `${source} does not match {"turns": [{"user": TEXT, "replies": [{"text"?: TEXT, "tool_calls"?: [{"tool": NAME, "args": {...}}]}]}]}: ${problems.join('; ')}`, {
      data: { source, problems },
    });
  }
  return parsed.data;
}

/** Where a conversation stands in a script: which turn, which reply comes next. */
export function scriptPosition(script: Script, messages: ChatRequest['messages']): { turn: number; reply: number; assistantMessages: number } {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      lastUser = i;
      break;
    }
  }
  if (lastUser < 0) throw new ForgeError('SCRIPT_MISMATCH', 'The conversation has no user message, so the script cannot say what comes next.');
  const text = messages[lastUser]!.content;
  const occurrence = messages.slice(0, lastUser + 1).filter((m) => m.role === 'user' && m.content === text).length;
  let seen = 0;
  const turn = script.turns.findIndex((t) => t.user === text && ++seen === occurrence);
  if (turn < 0) {
    throw new ForgeError('SCRIPT_MISMATCH', `The script has no turn for the user message ${JSON.stringify(text.slice(0, 80))}${occurrence > 1 ? ` (occurrence ${occurrence})` : ''}.`, {
      data: { user: text, occurrence },
    });
  }
  const reply = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  const assistantMessages = messages.filter((m) => m.role === 'assistant').length;
  return { turn, reply, assistantMessages };
}

export class ScriptedProvider implements Provider {
  readonly name = 'scripted';

  constructor(readonly script: Script) {}

  async complete(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw new ForgeError('AGENT_CANCELLED', 'The request was cancelled.');
    const position = scriptPosition(this.script, request.messages);
    const reply: ScriptReply = this.script.turns[position.turn]!.replies[position.reply] ?? {};
    const toolCalls = (reply.tool_calls ?? []).map((call, i) => ({ id: `call_${position.assistantMessages + 1}_${i + 1}`, name: call.tool, args: call.args ?? {} }));
    const text = reply.text ?? '';
    const input = estimateTokens(request.system) + estimateTokens(JSON.stringify(request.messages)) + estimateTokens(JSON.stringify(request.tools.openai));
    return {
      text,
      toolCalls,
      finish: toolCalls.length > 0 ? 'tool_calls' : 'end_turn',
      usage: { inputTokens: input, outputTokens: estimateTokens(text) + estimateTokens(JSON.stringify(reply.tool_calls ?? [])) },
      model: 'script',
    };
  }
}
