/** One-line summaries of calls and results, tool results for the model, diffstats, commit message cleaning. */
import { describe, expect, it } from 'vitest';
import { cleanCommitMessage } from '../../../src/agent/commit-message';
import { argsLine, formatDiffStat, MAX_TOOL_RESULT_CHARS, resultLine, toolResultContent } from '../../../src/agent/report';
import type { ToolResult } from '../../../src/tools';

const ok = (tool: string, output: unknown): ToolResult => ({ tool, ok: true, output, changes: [] });

describe('resultLine', () => {
  it.each([
    [ok('read_file', { total_lines: 12, start_line: 1, end_line: 12 }), '12 lines'],
    [ok('read_file', { total_lines: 5000, start_line: 1, end_line: 2000, next_start_line: 2001 }), 'lines 1-2000 of 5000'],
    [ok('read_file', { binary: true, size: 10 }), 'binary, 10 bytes'],
    [ok('write_file', { created: true, bytes: 7 }), 'created (7 bytes)'],
    [ok('delete_file', { deleted: true }), 'deleted'],
    [ok('search', { matches: [{}, {}], files_with_matches: 1, truncated: true }), '2 match(es) in 1 file(s) (truncated)'],
    [ok('list_files', { total: 3, truncated: false }), '3 file(s)'],
    [ok('update_context', { active_files: ['a', 'b'] }), 'active: a, b'],
    [ok('run_command', { exit_code: 0, duration_ms: 1234, changes: { added: ['x'], modified: [], deleted: [] }, applied: true }), 'exit 0 in 1.2 s, 1 file change(s) applied'],
    [ok('run_command', { exit_code: null, timed_out: true, duration_ms: 30_000, changes: { added: [], modified: [], deleted: [] } }), 'timed out after 30.0 s'],
    [ok('Edit', { message: 'src/a.ts: replaced lines 2-3.' }), 'src/a.ts: replaced lines 2-3.'],
    [{ tool: 'Edit', ok: false, error: { code: 'TEXT_NO_MATCH', message: 'old_snippet was not found\nin the file' } } as ToolResult, 'TEXT_NO_MATCH: old_snippet was not found in the file'],
  ])('%#: %s', (result, line) => {
    expect(resultLine(result)).toBe(line);
  });

  it('keeps lines short', () => {
    expect(resultLine(ok('custom', { message: 'x'.repeat(500) }), 50)).toHaveLength(50);
  });
});

describe('argsLine', () => {
  it('shows the command, path or pattern, else compact JSON', () => {
    expect(argsLine({ command: 'npm test', timeout_s: 5 })).toBe('npm test');
    expect(argsLine({ path: 'src/a.ts', content: '...' })).toBe('src/a.ts');
    expect(argsLine({ pattern: 'TODO' })).toBe('TODO');
    expect(argsLine({ add: ['a'] })).toBe('{"add":["a"]}');
    expect(argsLine({})).toBe('');
    expect(argsLine('{"broken')).toBe('{"broken');
  });
});

describe('toolResultContent', () => {
  it('is the output as JSON, or the error with its code; very long results are cut', () => {
    expect(toolResultContent(ok('x', { a: 1 }))).toEqual({ content: '{"a":1}', isError: false });
    expect(toolResultContent({ tool: 'x', ok: false, error: { code: 'TOOL_DENIED', message: 'no' } })).toEqual({ content: '{"error":{"code":"TOOL_DENIED","message":"no"}}', isError: true });
    const long = toolResultContent(ok('x', 'y'.repeat(MAX_TOOL_RESULT_CHARS + 100)));
    expect(long.content.length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 100);
    expect(long.content).toMatch(/… \[tool result cut: 102 more characters\]$/);
  });
});

describe('formatDiffStat', () => {
  it('lays out a diffstat like git --stat, scaled to the width', () => {
    expect(
      formatDiffStat(
        [
          { path: 'src/math.js', kind: 'modified', added: 1, removed: 1, binary: false },
          { path: 'test/math.test.js', kind: 'modified', added: 4, removed: 0, binary: false },
          { path: 'logo.png', kind: 'added', added: 0, removed: 0, binary: true },
        ],
        40,
      ),
    ).toEqual([' src/math.js       | 2 +-', ' test/math.test.js | 4 ++++', ' logo.png          | Bin', ' 3 files changed, 5 insertions(+), 1 deletion(-)']);
    expect(formatDiffStat([{ path: 'big', kind: 'added', added: 400, removed: 0, binary: false }], 40)).toEqual([` big | 400 ${'+'.repeat(40)}`, ' 1 file changed, 400 insertions(+)']);
    expect(formatDiffStat([])).toEqual([' no code changes']);
  });
});

describe('cleanCommitMessage', () => {
  it('strips fences, labels, quotes and our trailers; cuts a long subject', () => {
    expect(cleanCommitMessage('```\nFix it\n\nBody.\n```')).toBe('Fix it\n\nBody.');
    expect(cleanCommitMessage('Subject: "Fix it"\nForge-Turn: 3')).toBe('Fix it');
    expect(cleanCommitMessage(`${'a'.repeat(100)}`)).toHaveLength(72);
    expect(cleanCommitMessage('   \n\n')).toBeNull();
  });
});
