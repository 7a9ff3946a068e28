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
import { claudeTranscript, jsonl } from '../../helpers/claude-transcript';

const conversation = (turns: ConvertedTurn[]) => turns.map((t) => t.messages.map((m) => [m.role, m.content, m.toolCalls?.length ?? 0]));

const turnArb = fc.record({
  prompt: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '' && !s.trim().startsWith('<')),
  calls: fc.nat({ max: 3 }),
  answer: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
});

describe("the Stop payload's answer ends a transcript the hook read too early", () => {
  it('a transcript without its last answer, ended with the payload, converts as the whole one; a whole one is unchanged (property)', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 4 }), (turns) => {
        const entries = claudeTranscript(turns);
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
