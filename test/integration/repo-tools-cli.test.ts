/**
 * Repository tools through the CLI (issue 18): the scripted example (the agent proposes a tool,
 * the run is refused, a person approves it, the next run uses it), forge tools list / diff /
 * approve / --json, and forge turn. Read back with git; fsck --strict on every repository.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

const EXAMPLE = 'examples/repo-tools';
const LICENSE_TOOL = readFileSync(join(EXAMPLE, 'tools/license_header.js'), 'utf8');
const RENAME_TOOL = readFileSync(join(EXAMPLE, 'tools/rename_symbol.js'), 'utf8');

function ok(run: ReturnType<typeof forge>) {
  if (run.status !== 0) throw new Error(`forge exited ${run.status}: ${run.stderr}\n${run.stdout}`);
  return run;
}

function calls(list: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'forge-calls-')), 'calls.json');
  writeFileSync(file, JSON.stringify(list));
  return file;
}

describe('repository tools in the CLI', { timeout: 300_000 }, () => {
  it('the example script: proposed -> refused -> approved by a person -> used by the next run', () => {
    const script = JSON.parse(readFileSync(join(EXAMPLE, 'script.json'), 'utf8'));
    // The script proposes exactly the example tool.
    expect(script.turns[0].replies[0].tool_calls[0].args.content).toBe(LICENSE_TOOL);
    const repo = makeRepo({ files: { 'src/a.js': 'export const a = 1;\n', 'test/a.test.js': '#!/usr/bin/env node\nimport "../src/a.js";\n' } });

    const first = forge(['run', '--repo', repo.dir, '--script', join(EXAMPLE, 'script.json'), '--approve', 'all', '--max-turns', '1', '--id', 'demo', '--json']);
    // 5: a tool call of the turn failed (the refused tool); the turn is committed all the same.
    expect(first.status).toBe(5);
    const events = first.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const refused = events.find((e) => e.type === 'tool_result' && e.tool === 'license_header');
    expect(refused).toBeDefined();
    expect(JSON.stringify(refused)).toContain('TOOL_NOT_APPROVED');
    expect(git(repo.dir, ['show', 'forge/session/demo:src/a.js']).stdout).toBe('export const a = 1;\n');

    const listed = ok(forge(['tools', 'list', '--repo', repo.dir, '--session', 'demo', '--json'])).json();
    expect(listed.tools.find((t: { name: string }) => t.name === 'license_header')).toMatchObject({ kind: 'repository', state: 'unapproved' });
    expect(listed.tools.find((t: { name: string }) => t.name === 'write_file')).toMatchObject({ kind: 'builtin' });
    const diff = ok(forge(['tools', 'diff', 'license_header', '--repo', repo.dir, '--session', 'demo', '--json'])).json();
    expect(diff).toMatchObject({ state: 'unapproved', approvedSha256: null });
    expect(diff.diff).toContain('+export async function execute');

    const approval = ok(forge(['tools', 'approve', 'license_header', '--repo', repo.dir, '--session', 'demo', '--json'])).json();
    expect(git(repo.dir, ['diff-tree', '--no-commit-id', '--name-only', '-r', approval.commit]).stdout.trim()).toBe('.forge/approved_tools.json');
    expect(git(repo.dir, ['rev-parse', 'forge/session/demo']).stdout.trim()).toBe(approval.commit);

    ok(forge(['run', '--repo', repo.dir, '--session', 'demo', '--script', join(EXAMPLE, 'script.json'), '--approve', 'all']));
    expect(git(repo.dir, ['show', 'forge/session/demo:src/a.js']).stdout).toBe('// SPDX-License-Identifier: MIT\n\nexport const a = 1;\n');
    expect(git(repo.dir, ['show', 'forge/session/demo:test/a.test.js']).stdout).toBe('#!/usr/bin/env node\n// SPDX-License-Identifier: MIT\n\nimport "../src/a.js";\n');
    // The person's main branch and working tree were never touched.
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('forge tools --json lists approved repository tools in both forms; list shows changed tools and diff what changed', () => {
    const repo = makeRepo({ files: { 'tools/rename_symbol.js': RENAME_TOOL, 'src/a.js': 'export function oldName() {}\noldName();\n' } });
    let schemas = ok(forge(['tools', '--repo', repo.dir, '--json'])).json();
    expect(schemas.openai.map((t: { function: { name: string } }) => t.function.name)).not.toContain('rename_symbol');

    ok(forge(['tools', 'approve', 'rename_symbol', '--repo', repo.dir]));
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    schemas = ok(forge(['tools', '--repo', repo.dir, '--json'])).json();
    const openai = schemas.openai.find((t: { function: { name: string } }) => t.function.name === 'rename_symbol');
    expect(openai.function).toMatchObject({ strict: true, parameters: { type: 'object', additionalProperties: false, required: ['from', 'to', 'dir', 'extensions'] } });
    expect(schemas.anthropic.find((t: { name: string }) => t.name === 'rename_symbol').input_schema.properties.from.type).toBe('string');

    // The renamer works through forge turn.
    ok(forge(['session', 'new', '--repo', repo.dir, '--id', 'r']));
    const turn = ok(forge(['turn', '--repo', repo.dir, '--session', 'r', '--calls', calls([{ tool: 'rename_symbol', args: { from: 'oldName', to: 'newName', dir: 'src', extensions: ['.js'] } }]), '--json'])).json();
    expect(turn.results[0]).toMatchObject({ ok: true, output: { result: { files: 1, changed: [{ path: 'src/a.js', replacements: 2 }] } } });
    expect(git(repo.dir, ['show', 'forge/session/r:src/a.js']).stdout).toBe('export function newName() {}\nnewName();\n');

    // A person edits the tool on main: changed since approval, and diff shows the change.
    writeFileSync(join(repo.dir, 'tools/rename_symbol.js'), RENAME_TOOL.replace("throw new Error('from and to must be identifiers')", "throw new Error('identifiers only')"));
    git(repo.dir, ['commit', '-qam', 'change the tool']);
    const listed = ok(forge(['tools', 'list', '--repo', repo.dir, '--json'])).json();
    const entry = listed.tools.find((t: { name: string }) => t.name === 'rename_symbol');
    expect(entry.state).toBe('changed');
    expect(entry.sha256).not.toBe(entry.approvedSha256);
    const diff = ok(forge(['tools', 'diff', 'rename_symbol', '--repo', repo.dir])).stdout;
    expect(diff).toContain(`approved sha256 ${entry.approvedSha256}`);
    expect(diff).toContain("-  if (!IDENTIFIER.test(args.from) || !IDENTIFIER.test(args.to)) throw new Error('from and to must be identifiers');");
    expect(diff).toContain("+  if (!IDENTIFIER.test(args.from) || !IDENTIFIER.test(args.to)) throw new Error('identifiers only');");
    schemas = ok(forge(['tools', '--repo', repo.dir, '--json'])).json();
    expect(schemas.openai.map((t: { function: { name: string } }) => t.function.name)).not.toContain('rename_symbol');
    expectFsckClean(repo.gitdir);
  });

  it('approving a tool named like a built-in fails with TOOL_NAME_CONFLICT and commits nothing', () => {
    const repo = makeRepo({ files: { 'tools/Edit.js': RENAME_TOOL } });
    const head = git(repo.dir, ['rev-parse', 'main']).stdout.trim();
    const run = forge(['tools', 'approve', 'Edit', '--repo', repo.dir, '--json']);
    expect(run.status).toBe(2);
    expect(run.json().error.code).toBe('TOOL_NAME_CONFLICT');
    expect(git(repo.dir, ['rev-parse', 'main']).stdout.trim()).toBe(head);
    expect(ok(forge(['tools', 'list', '--repo', repo.dir, '--json'])).json().tools.find((t: { path?: string }) => t.path === 'tools/Edit.js')).toMatchObject({ state: 'refused' });
  });
});
