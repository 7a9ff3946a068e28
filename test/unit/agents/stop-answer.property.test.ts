/**
 * Claude Code runs its Stop hook before the answer's entry reaches the transcript file
 * (anthropics/claude-code#15812) and passes the answer as `last_assistant_message`: a transcript
 * missing its last answer, ended with that text, converts to the same conversation as the whole
 * transcript; a transcript that has the answer is left as it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeTurns } from '../../../src/agents/claude-code';
import { endLastTurnWith, type ConvertedTurn } from '../../../src/agents/transcript';

const jsonl = (entries: object[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
const conversation = (turns: ConvertedTurn[]) => turns.map((t) => t.messages.map((m) => [m.role, m.content, m.toolCalls?.length ?? 0]));

function transcript(turns: Array<{ prompt: string; calls: number; answer: string }>): object[] {
  const out: object[] = [];
  turns.forEach((t, i) => {
    out.push({ type: 'user', uuid: `p${i}`, sessionId: 's', message: { role: 'user', content: t.prompt } });
    for (let c = 0; c < t.calls; c++) {
      out.push({ type: 'assistant', uuid: `t${i}-${c}`, sessionId: 's', message: { id: `m${i}-${c}`, role: 'assistant', content: [{ type: 'tool_use', id: `call${i}-${c}`, name: 'Bash', input: { command: 'ls' } }] } });
      out.push({ type: 'user', uuid: `r${i}-${c}`, sessionId: 's', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `call${i}-${c}`, content: 'ok' }] } });
    }
    out.push({ type: 'assistant', uuid: `a${i}`, sessionId: 's', message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text: t.answer }] } });
  });
  return out;
}

const turnArb = fc.record({
  prompt: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '' && !s.trim().startsWith('<')),
  calls: fc.nat({ max: 3 }),
  answer: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
});

describe("the Stop payload's answer ends a transcript the hook read too early", () => {
  it('a transcript without its last answer, ended with the payload, converts as the whole one; a whole one is unchanged (property)', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 4 }), (turns) => {
        const entries = transcript(turns);
        const whole = claudeCodeTurns(jsonl(entries));
        const early = claudeCodeTurns(jsonl(entries.slice(0, -1)));
        const answer = turns.at(-1)!.answer;
        expect(conversation(endLastTurnWith(early, answer))).toEqual(conversation(whole));
        expect(endLastTurnWith(whole, answer)).toBe(whole);
        expect(endLastTurnWith(early, undefined)).toBe(early);
      }),
      { numRuns: 300 },
    );
  });
});
