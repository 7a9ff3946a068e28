import { describe, expect, it } from 'vitest';
import {
  BUILTIN_TOOLS,
  allowAll,
  allowList,
  allowReadOnly,
  createToolContext,
  createToolRegistry,
  denyAll,
  resolveApproval,
  type ApprovalPolicy,
  type ApprovalRequest,
} from '../../../src/tools';
import { expectError, expectOk, setup } from './harness';

const tree = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' };

/** A valid call of every write tool, against `tree` (after a.txt was read). */
const WRITE_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['Edit', { path: 'a.txt', old_snippet: 'alpha', new_snippet: 'ALPHA' }],
  ['edit', { path: 'a.txt', start_line: 1, end_line: 1, new_content: 'ALPHA' }],
  ['Patch', { path: 'a.txt', patches: [{ operation: 'replace', oldText: 'alpha', newText: 'ALPHA' }] }],
  ['search_replace', { path: 'a.txt', blocks: '<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n' }],
  ['write_file', { path: 'c.txt', content: 'gamma\n' }],
  ['delete_file', { path: 'b.txt' }],
];

const canonical = (name: string) => BUILTIN_TOOLS.find((t) => t.name === name || t.aliases?.includes(name))!.name;

describe('modes', () => {
  it('REQ-PATCH-009: Patch in restricted mode fails with the exact wording and changes nothing', async () => {
    const h = await setup(tree, { mode: 'restricted' });
    await h.read('a.txt');
    const error = expectError(
      await h.call('Patch', { path: 'a.txt', patches: [{ operation: 'replace', oldText: 'alpha', newText: 'ALPHA' }] }),
      'TOOL_DISABLED_IN_MODE',
    );
    expect(error.message).toBe('Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it.each(WRITE_CALLS)('REQ-PATCH-009: %s in restricted mode fails with the same wording for that tool', async (tool, args) => {
    const h = await setup(tree, { mode: 'restricted' });
    await h.read('a.txt');
    const error = expectError(await h.call(tool, args), 'TOOL_DISABLED_IN_MODE');
    expect(error.message).toBe(`${canonical(tool)} tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.`);
    expect(h.vfs.mutationCount).toBe(0);
    expect(h.vfs.snapshot()).toEqual((await setup(tree)).vfs.snapshot());
  });

  it('REQ-PATCH-009: the mode is checked before the arguments', async () => {
    const h = await setup(tree, { mode: 'restricted' });
    const error = expectError(await h.call('Patch', { nonsense: true }), 'TOOL_DISABLED_IN_MODE');
    expect(error.message).toBe('Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.');
  });

  it.each(WRITE_CALLS)('REQ-PATCH-009: %s works in unrestricted mode', async (tool, args) => {
    const h = await setup(tree, { mode: 'unrestricted' });
    await h.read('a.txt');
    expectOk(await h.call(tool, args));
    expect(await h.vfs.diff()).not.toEqual([]);
  });

  it('read-only tools work in restricted mode', async () => {
    const h = await setup(tree, { mode: 'restricted' });
    expectOk(await h.call('read_file', { path: 'a.txt' }));
    expectOk(await h.call('list_files', {}));
    expectOk(await h.call('search', { pattern: 'alpha' }));
    expectOk(await h.call('update_context', { add: ['a.txt'] }));
    expectOk(await h.call('list_active_files', {}));
    expect(h.state.activeFiles).toEqual(['a.txt']);
  });

  it('REQ-PATCH-009: switching to restricted disables write tools for the next call', async () => {
    const h = await setup(tree, { mode: 'unrestricted' });
    await h.read('a.txt');
    expectOk(await h.call('write_file', { path: 'a.txt', content: 'one\n' }));
    h.state.mode = 'restricted';
    expectError(await h.call('write_file', { path: 'a.txt', content: 'two\n' }), 'TOOL_DISABLED_IN_MODE');
    expect(await h.vfs.text('a.txt')).toBe('one\n');
  });
});

describe('request_mode_upgrade', () => {
  it('upgrades the session when the approver says yes, then writes work', async () => {
    const asked: ApprovalRequest[] = [];
    const h = await setup(tree, { mode: 'restricted', approval: allowReadOnly((request) => (asked.push(request), true)) });
    const output = expectOk(await h.call('request_mode_upgrade', { reason: 'fix the typo in a.txt' }));
    expect(output).toMatchObject({ mode: 'unrestricted', changed: true });
    expect(h.state.mode).toBe('unrestricted');
    expect(asked).toEqual([expect.objectContaining({ tool: 'request_mode_upgrade', mode: 'restricted', args: { reason: 'fix the typo in a.txt' } })]);
  });

  it('leaves the session restricted when the approver says no', async () => {
    const h = await setup(tree, { mode: 'restricted', approval: allowReadOnly(() => false) });
    const error = expectError(await h.call('request_mode_upgrade', { reason: 'please' }), 'TOOL_DENIED');
    expect(error.message).toContain('declined');
    expect(h.state.mode).toBe('restricted');
  });

  it('is denied headless by the default policy (no approver)', async () => {
    const h = await setup(tree, { mode: 'restricted', approval: allowReadOnly() });
    const error = expectError(await h.call('request_mode_upgrade', { reason: 'please' }), 'TOOL_DENIED');
    expect(error.data).toMatchObject({ reason: 'no_approver' });
    expect(h.state.mode).toBe('restricted');
  });

  it('reports no change when the session is already unrestricted', async () => {
    const h = await setup(tree, { mode: 'unrestricted' });
    expect(expectOk(await h.call('request_mode_upgrade', { reason: 'x' }))).toMatchObject({ changed: false });
  });
});

describe('approval', () => {
  const request = (tool: string, sideEffects: boolean, aliases: string[] = []): ApprovalRequest => ({
    tool,
    aliases,
    sideEffects,
    args: {},
    paths: [],
    mode: 'unrestricted',
  });

  it('presets decide as documented', async () => {
    expect(await resolveApproval(allowAll, request('Patch', true))).toEqual({ allowed: true });
    expect(await resolveApproval(denyAll, request('read_file', false))).toEqual({ allowed: false, reason: 'denied' });
    expect(await resolveApproval(allowReadOnly(), request('read_file', false))).toEqual({ allowed: true });
    expect(await resolveApproval(allowReadOnly(), request('Patch', true))).toEqual({ allowed: false, reason: 'no_approver' });
    expect(await resolveApproval(allowReadOnly(() => true), request('Patch', true))).toEqual({ allowed: true });
    expect(await resolveApproval(allowReadOnly(async () => false), request('Patch', true))).toEqual({ allowed: false, reason: 'declined' });
    const list = allowList(['Patch', 'edit']);
    expect(await resolveApproval(list, request('Patch', true))).toEqual({ allowed: true });
    expect(await resolveApproval(list, request('Edit', true, ['edit']))).toEqual({ allowed: true });
    expect(await resolveApproval(list, request('write_file', true))).toEqual({ allowed: false, reason: 'no_approver' });
    expect(await resolveApproval(list, request('read_file', false))).toEqual({ allowed: true });
    expect(await resolveApproval(allowList(['Patch'], () => true), request('write_file', true))).toEqual({ allowed: true });
  });

  it('the default context policy never allows a side-effecting tool', async () => {
    const h = await setup(tree);
    const ctx = createToolContext({ vfs: h.vfs, state: h.state });
    const registry = createToolRegistry();
    expect((await registry.call(ctx, 'read_file', { path: 'a.txt' })).ok).toBe(true);
    for (const [tool, args] of WRITE_CALLS) expectError(await registry.call(ctx, tool, args), 'TOOL_DENIED');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('a denied call returns a clear result and changes nothing', async () => {
    const h = await setup(tree, { approval: denyAll });
    const error = expectError(await h.call('write_file', { path: 'c.txt', content: 'x' }), 'TOOL_DENIED');
    expect(error.message).toMatch(/denied the write_file call\. Nothing was changed\./);
    expect(h.vfs.mutationCount).toBe(0);
    expect(h.state.readHashes).toEqual({});
  });

  it('shows the approver the validated arguments and the sandboxed paths', async () => {
    const seen: ApprovalRequest[] = [];
    const policy: ApprovalPolicy = { decide: () => 'ask', ask: async (r) => (seen.push(r), true) };
    const h = await setup(tree, { approval: policy });
    await h.read('a.txt');
    expectOk(await h.call('edit', { path: 'a.txt', old_snippet: 'alpha', new_snippet: 'A', file_hash: null }));
    expect(seen.at(-1)).toEqual({
      tool: 'Edit',
      aliases: ['edit'],
      sideEffects: true,
      args: { path: 'a.txt', old_snippet: 'alpha', new_snippet: 'A' },
      paths: ['a.txt'],
      mode: 'unrestricted',
    });
  });
});
