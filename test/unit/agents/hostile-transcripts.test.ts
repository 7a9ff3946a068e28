/**
 * What an agent's transcript may hold that the converters never expected: lines that are not
 * JSON, JSON of the wrong shape (null, numbers, arrays, content of the wrong type), torn last
 * lines, control characters and very long lines. The converters keep what they understand and
 * skip the rest; they never throw, and every text they return is a string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeTurns, codexTurns } from '../../../src/agents';

const oddLine = fc.oneof(
  fc.string(),
  fc.constantFrom('null', '1', '[]', '"x"', '{', '{"type":"user"}', '{"type":"user","message":null}', '{"type":"user","message":{"content":7}}', '{"type":"assistant","message":{"content":[null,1,{"type":"tool_use"}]}}', '{"type":"response_item","payload":null}', '{"type":"response_item","payload":{"type":"message","content":"x"}}', '{"type":"event_msg","payload":{"type":"user_message","message":{}}}'),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.constant(`{"type":"user","message":{"role":"user","content":"${'\u001b[2J'.repeat(10)}${'a'.repeat(200_000)}"}}`),
);

describe('agent transcripts from a hostile or broken agent (issue 28)', () => {
  for (const [name, convert] of [['Claude Code', claudeCodeTurns], ['Codex', codexTurns]] as const) {
    it(`${name}: odd lines are skipped, never a crash, and every text is a string`, () => {
      fc.assert(
        fc.property(fc.array(oddLine, { maxLength: 20 }), (lines) => {
          const turns = convert(lines.join('\n'));
          for (const turn of turns) for (const m of turn.messages) expect(typeof m.content).toBe('string');
        }),
        { numRuns: 200 },
      );
    });
  }
});
