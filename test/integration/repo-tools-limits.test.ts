/**
 * Issue 24, section 1: the repository-tool sandbox's limits are enforced. Each case of the issue
 * is run through the sandbox the CLI and `forge mcp` use in Node (a worker thread the host can
 * terminate) and, where the case is not about preemption, through the in-thread runner the
 * browser build keeps. The errors carry their limit's code; nothing a failed call did lands.
 */
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { nodeWorktreeSync } from '../../src/branches/node/worktree-sync';
import { SessionStore } from '../../src/session';
import { BUILTIN_TOOLS, allowAll, sha256Hex, type ToolResult } from '../../src/tools';
import { LocalToolTrust, QuickJsSandbox, approveRepoTool, registryWithRepoTools, type SandboxVfs, type WasmSandbox } from '../../src/tools/repo';
import { diskBackend } from '../helpers/engine-repos';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { testWorkerSandbox } from '../helpers/repo-tool-worker';

const RESERVED = new Set(BUILTIN_TOOLS.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
const LIMITS = { time_limit_ms: 60_000, memory_limit_bytes: 8 << 20, output_limit_bytes: 4096 };
const SHORT_TIME = { ...LIMITS, time_limit_ms: 400 };

function tool(body: string, schema = "{ type: 'object', properties: { path: { type: 'string' } } }"): string {
  return `export const description = 'test';\nexport const schema = ${schema};\nexport async function execute(vfs, args) {\n${body}\n}\n`;
}

async function sessionWith(sandbox: WasmSandbox, tools: Record<string, string>, limits: object = LIMITS) {
  const repo = await diskBackend.make({ files: { 'a.txt': 'original\n', ...Object.fromEntries(Object.entries(tools).map(([n, s]) => [`tools/${n}.js`, s])) } });
  for (const name of Object.keys(tools)) {
    await approveRepoTool(await repo.open(), { name, reservedNames: RESERVED, hash: sha256Hex, worktree: nodeWorktreeSync() });
  }
  const session = await new SessionStore(await repo.open()).create({ id: 'lim', base: 'main' });
  const { registry, problems } = await registryWithRepoTools(BUILTIN_TOOLS, session.vfs, { sandbox, trust: new LocalToolTrust(session.repo), limits });
  const runner = new SessionToolRunner(session, { approval: allowAll, registry });
  return { repo, session, runner, problems };
}

function output(result: ToolResult): any {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return (result.output as { result: unknown }).result;
}

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`${result.tool} succeeded: ${JSON.stringify(result.output).slice(0, 200)}`);
  return result.error;
}

const SANDBOXES: Array<[string, () => WasmSandbox]> = [
  ['worker thread (Node)', testWorkerSandbox],
  ['in-thread runner (browser)', () => new QuickJsSandbox()],
];

describe('issue 24: time is a hard wall-clock limit (worker thread)', { timeout: 300_000 }, () => {
  const sandbox = testWorkerSandbox();
  for (const [name, spin] of [
    ['Array.prototype.includes on a 2**53-1 length', 'return Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1);'],
    ['Array.prototype.indexOf on a 2**53-1 length', 'return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1);'],
    ['Array.prototype.lastIndexOf on a 2**53-1 length', 'return Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1 }, 1);'],
    ['sort of 2,000,000 strings', "const a = []; for (let i = 0; i < 2000000; i++) a.push('k' + ((i * 7919) % 2000003)); a.sort(); return a.length;"],
  ] as const) {
    it(`${name} is stopped at a limit, its partial edits discarded`, async () => {
      const { runner, session, repo } = await sessionWith(sandbox, { spin: tool(`await vfs.writeFile('a.txt', 'partial');\n${spin}`) }, SHORT_TIME);
      const error = errorOf(await runner.call({ tool: 'spin', args: {} }));
      // The sort's 2,000,000 strings may fill the 64 MiB heap before the clock runs out on a quick
      // machine: either limit stops it (it once ran 16 s and succeeded); the spins can only time out.
      expect(name.startsWith('sort') ? ['REPO_TOOL_TIMEOUT', 'REPO_TOOL_MEMORY_LIMIT'] : ['REPO_TOOL_TIMEOUT']).toContain(error.code);
      expect(new TextDecoder().decode(await session.vfs.readFile('a.txt'))).toBe('original\n');
      // The next call runs normally.
      expect(errorOf(await runner.call({ tool: 'nope', args: {} })).code).toBe('TOOL_NOT_FOUND');
      expectFsckClean(repo.gitdir);
    });
  }
});

describe.each(SANDBOXES)('issue 24 limits: %s', { timeout: 300_000 }, (_, make) => {
  const sandbox = make();

  it("memory: a loop of 1 MiB buffers gets no more than the tool's memory limit, even when it catches the failure", async () => {
    const limits = { ...LIMITS, memory_limit_bytes: 32 << 20 };
    const { runner } = await sessionWith(sandbox, {
      hoard: tool('const kept = []; try { while (true) kept.push(new Uint8Array(1 << 20)); } catch (e) { return { buffers: kept.length, error: String(e) }; }'),
    }, limits);
    const result = await runner.call({ tool: 'hoard', args: {} });
    if (result.ok) expect(output(result).buffers).toBeLessThanOrEqual(limits.memory_limit_bytes >> 20);
    else expect(result.error.code).toBe('REPO_TOOL_MEMORY_LIMIT');
    // The memory is given back: the next call allocates up to the limit again.
    const again = await runner.call({ tool: 'hoard', args: {} });
    if (again.ok) expect(output(again).buffers).toBeGreaterThan(0);
    else expect(again.error.code).toBe('REPO_TOOL_MEMORY_LIMIT');
  });

  it('a `pattern` the safe-regex rule refuses makes the tool invalid at load (a warning), not a hang on the host', async () => {
    const evil = tool('return args.s.length;', "{ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }");
    const evilDeep = tool('return 1;', "{ type: 'object', properties: { o: { type: 'object', patternProperties: { '^(\\\\w+\\\\s?)*$': { type: 'string' } } } } }");
    const { runner, problems } = await sessionWith(sandbox, { evil, evil_keys: evilDeep, fine: tool("return 'ok';") });
    expect(problems.map((p) => [p.tool, p.error.code]).sort()).toEqual([
      ['evil', 'REPO_TOOL_INVALID'],
      ['evil_keys', 'REPO_TOOL_INVALID'],
    ]);
    expect(problems[0]!.error.message).toMatch(/pattern/);
    const error = errorOf(await runner.call({ tool: 'evil', args: { s: `${'a'.repeat(36)}!` } }));
    expect(error.code).toBe('REPO_TOOL_INVALID');
    expect(output(await runner.call({ tool: 'fine', args: {} }))).toBe('ok');
  });

  it('a schema nested 20,000 deep is isolated: a warning for that tool, the other tools work', async () => {
    const deep = tool('return 1;', "(() => { let s = { type: 'string' }; for (let i = 0; i < 20000; i++) s = { type: 'object', properties: { x: s } }; return { type: 'object', properties: { x: s } }; })()");
    const { runner, problems } = await sessionWith(sandbox, { deep, fine: tool("return 'ok';") });
    expect(problems.map((p) => [p.tool, p.error.code])).toEqual([['deep', 'REPO_TOOL_INVALID']]);
    expect(output(await runner.call({ tool: 'fine', args: {} }))).toBe('ok');
    expect(errorOf(await runner.call({ tool: 'deep', args: {} })).code).toBe('REPO_TOOL_INVALID');
    expect(output(await runner.call({ tool: 'read_file', args: { path: 'a.txt' } }))).toBeUndefined();
  });

  it('deep guest recursion is REPO_TOOL_DEPTH_LIMIT, not INTERNAL', async () => {
    const { runner, session } = await sessionWith(sandbox, { rec: tool("await vfs.writeFile('a.txt', 'partial'); const f = (n) => f(n + 1) + 1; return f(0);") });
    const error = errorOf(await runner.call({ tool: 'rec', args: {} }));
    expect(error.code).toBe('REPO_TOOL_DEPTH_LIMIT');
    expect(new TextDecoder().decode(await session.vfs.readFile('a.txt'))).toBe('original\n');
  });

  it('a deeply nested result is REPO_TOOL_DEPTH_LIMIT, not INTERNAL; a result nested within the limit is returned', async () => {
    for (const depth of [3000, 20_000]) {
      const { runner } = await sessionWith(sandbox, { nest: tool(`let v = 1; for (let i = 0; i < ${depth}; i++) v = [v]; return v;`) }, { ...LIMITS, output_limit_bytes: 1 << 20 });
      expect(errorOf(await runner.call({ tool: 'nest', args: {} })).code).toBe('REPO_TOOL_DEPTH_LIMIT');
    }
    const { runner } = await sessionWith(sandbox, { nest: tool('let v = 1; for (let i = 0; i < 50; i++) v = [v]; return v;') });
    expect(JSON.stringify(output(await runner.call({ tool: 'nest', args: {} })))).toBe(`${'['.repeat(50)}1${']'.repeat(50)}`);
  });

  it('a 20 MB error message is capped like the output (the result and the session file stay small)', async () => {
    const { runner, session, repo } = await sessionWith(sandbox, { loud: tool("throw new Error('x'.repeat(20e6));") }, { ...LIMITS, memory_limit_bytes: 64 << 20 });
    const error = errorOf(await runner.call({ tool: 'loud', args: {} }));
    expect(error.code).toBe('REPO_TOOL_FAILED');
    expect(JSON.stringify(error).length).toBeLessThan(3 * LIMITS.output_limit_bytes);
    expect(error.message).toMatch(/truncated/);
    await session.commitTurn({ message: 'loud' });
    // Every blob of the committed turn (the session file with its record of the call among them) stays small.
    const sizes = git(repo.dir, ['ls-tree', '-r', '-l', 'forge/session/lim']).stdout.trim().split('\n').map((line) => Number(line.split(/\s+/)[3]));
    expect(Math.max(...sizes)).toBeLessThan(1 << 20);
    expectFsckClean(repo.gitdir);
  });

  it('un-awaited writes: the host holds no more queued copies than the memory limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const vfs: SandboxVfs = {
      readFile: async () => new Uint8Array(),
      writeFile: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
      },
      deleteFile: async () => {},
      exists: async () => false,
      list: async () => [],
      stat: async () => null,
    };
    const source = tool("const s = 'y'.repeat(1 << 20); for (let i = 0; i < 3000; i++) vfs.writeFile('big' + i, s); return 'queued';");
    const outcome = await sandbox.execute(source, 'tools/flood.js', vfs, {}, LIMITS).then(
      (json) => ({ ok: true as const, json }),
      (error: { code?: string }) => ({ ok: false as const, code: error.code }),
    );
    expect(outcome).toEqual({ ok: false, code: 'REPO_TOOL_MEMORY_LIMIT' });
    expect(peak).toBeLessThanOrEqual(LIMITS.memory_limit_bytes >> 20);
  });
});
