/**
 * A resumed session's transcript: cut as of turn k (Claude Code's transcript, Codex's rollout),
 * it converts back to exactly the first k turns, whatever the turns hold (tool calls, local
 * slash commands between them), and the cut is a prefix of the original entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeTranscriptUpTo, claudeCodeTurns } from '../../../src/agents/claude-code';
import { codexRolloutUpTo, codexTurns } from '../../../src/agents/codex';
import { claudeTranscript, jsonl } from '../../helpers/claude-transcript';


const turnShape = fc.record({ prompt: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '' && !s.trim().startsWith('<') && !s.startsWith('# AGENTS')), calls: fc.nat({ max: 3 }), command: fc.boolean() });

function codexRollout(turns: Array<{ prompt: string; calls: number }>): object[] {
  const out: object[] = [{ timestamp: 't', type: 'session_meta', payload: { id: 'thread-1', cwd: '/w' } }];
  turns.forEach((t, i) => {
    out.push({ timestamp: `t${i}`, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: t.prompt }] } });
    for (let c = 0; c < t.calls; c++) {
      out.push({ timestamp: `t${i}`, type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: `c${i}-${c}` } });
      out.push({ timestamp: `t${i}`, type: 'response_item', payload: { type: 'function_call_output', call_id: `c${i}-${c}`, output: 'ok' } });
    }
    out.push({ timestamp: `t${i}`, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i}` }] } });
  });
  return out;
}

describe('transcripts cut as of a turn', () => {
  it('Claude Code: the cut converts back to the first k turns and is a prefix', () => {
    fc.assert(
      fc.property(fc.array(turnShape, { minLength: 1, maxLength: 6 }), fc.nat(), (shapes, pick) => {
        const entries = claudeTranscript(shapes);
        const text = jsonl(entries);
        const all = claudeCodeTurns(text);
        expect(all).toHaveLength(shapes.length);
        const k = pick % (shapes.length + 1);
        const cut = claudeCodeTranscriptUpTo(text, new Set(all.slice(0, k).map((t) => t.key)));
        expect(cut.keys).toEqual(all.slice(0, k).map((t) => t.key));
        expect(cut.entries).toEqual(entries.slice(0, cut.entries.length));
        expect(claudeCodeTurns(jsonl(cut.entries))).toEqual(all.slice(0, k));
      }),
    );
  });

  it('Codex: the cut converts back to the first k turns and is a prefix', () => {
    fc.assert(
      fc.property(fc.array(turnShape, { minLength: 1, maxLength: 6 }), fc.nat(), (shapes, pick) => {
        const entries = codexRollout(shapes);
        const text = jsonl(entries);
        const all = codexTurns(text);
        const k = pick % (shapes.length + 1);
        const cut = codexRolloutUpTo(text, new Set(all.slice(0, k).map((t) => t.key)));
        expect(cut.keys).toEqual(all.slice(0, k).map((t) => t.key));
        expect(cut.entries).toEqual(entries.slice(0, cut.entries.length));
        expect(codexTurns(jsonl(cut.entries))).toEqual(all.slice(0, k));
      }),
    );
  });
});
