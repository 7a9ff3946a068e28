/**
 * The repository-tool sandbox (issue 18): nothing outside the `vfs` it is given is reachable,
 * limits stop runaway tools with coded errors and their partial edits are discarded, and paths
 * go through the same sandbox as write_file (same codes).
 */
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { nodeWorktreeSync } from '../../src/branches/node/worktree-sync';
import { SessionStore } from '../../src/session';
import { BUILTIN_TOOLS, allowAll, sha256Hex, type ToolResult } from '../../src/tools';
import { LocalToolTrust, QuickJsSandbox, approveRepoTool, registryWithRepoTools } from '../../src/tools/repo';
import { diskBackend, text } from '../helpers/engine-repos';
import { expectFsckClean } from '../helpers/fsck';

const sandbox = new QuickJsSandbox();
const RESERVED = new Set(BUILTIN_TOOLS.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
// A generous time limit (the machine may be loaded; only the timeout tests rely on one), small memory and output limits.
const LIMITS = { time_limit_ms: 60_000, memory_limit_bytes: 8 << 20, output_limit_bytes: 4096 };
const SHORT_TIME = { ...LIMITS, time_limit_ms: 300 };

function tool(body: string, schema = "{ type: 'object', properties: { path: { type: 'string' } } }"): string {
  return `export const description = 'test';\nexport const schema = ${schema};\nexport async function execute(vfs, args) {\n${body}\n}\n`;
}

/** A session on a repository whose tools (name -> source) are all approved on main. */
async function sessionWith(tools: Record<string, string>, files: Record<string, string | { content: string; mode: '120000' }> = {}, limits: object = LIMITS) {
  const repo = await diskBackend.make({ files: { 'a.txt': 'original\n', ...files, ...Object.fromEntries(Object.entries(tools).map(([n, s]) => [`tools/${n}.js`, s])) } });
  for (const name of Object.keys(tools)) {
    await approveRepoTool(await repo.open(), { name, reservedNames: RESERVED, hash: sha256Hex, worktree: nodeWorktreeSync() });
  }
  const session = await new SessionStore(await repo.open()).create({ id: 'sb', base: 'main' });
  const { registry } = await registryWithRepoTools(BUILTIN_TOOLS, session.vfs, { sandbox, trust: new LocalToolTrust(session.repo), limits });
  const runner = new SessionToolRunner(session, { approval: allowAll, registry });
  return { repo, session, runner };
}

function output(result: ToolResult): any {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return (result.output as { result: unknown }).result;
}

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`${result.tool} succeeded: ${JSON.stringify(result.output)}`);
  return result.error;
}

describe('repository tool sandbox: no way out', { timeout: 300_000 }, () => {
  it('process, require, fetch, Date, timers and console do not exist; import() of a module fails', async () => {
    const { runner } = await sessionWith({
      probe: tool(`
        const seen = {};
        for (const name of ['process', 'require', 'fetch', 'Date', 'setTimeout', 'console', 'XMLHttpRequest', 'WebAssembly', 'std', 'os', 'module', 'Buffer', '__dirname']) seen[name] = typeof globalThis[name];
        seen.viaFunction = Function('return typeof process + typeof require')();
        seen.viaConstructor = (0, ({}).constructor.constructor)('return typeof this.process')();
        seen.sloppyThis = (function () { return typeof this; })();
        let imported;
        try { await import('fs'); imported = 'loaded'; } catch (e) { imported = String(e && e.message); }
        seen.importFs = imported;
        try { await import('node:child_process'); seen.importCp = 'loaded'; } catch (e) { seen.importCp = 'failed'; }
        return seen;`),
    });
    const seen = output(await runner.call({ tool: 'probe', args: {} }));
    for (const name of ['process', 'require', 'fetch', 'Date', 'setTimeout', 'console', 'XMLHttpRequest', 'WebAssembly', 'std', 'os', 'module', 'Buffer', '__dirname']) {
      expect(seen[name], name).toBe('undefined');
    }
    expect(seen.viaFunction).toBe('undefinedundefined');
    expect(seen.viaConstructor).toBe('undefined');
    expect(seen.importFs).toMatch(/could not load module/);
    expect(seen.importCp).toBe('failed');
  });

  it('a static import of anything is refused when the module loads', async () => {
    const { runner } = await sessionWith({ imp: `import { readFileSync } from 'fs';\n${tool("return readFileSync('/etc/passwd', 'utf8');")}` });
    const error = errorOf(await runner.call({ tool: 'imp', args: {} }));
    expect(['REPO_TOOL_INVALID', 'TOOL_NOT_FOUND']).toContain(error.code);
  });

  it('calling process or require fails inside the sandbox, and nothing is changed', async () => {
    const { runner, session } = await sessionWith({
      proc: tool(`await vfs.writeFile('a.txt', 'partial'); return process.env;`),
      req: tool(`await vfs.writeFile('a.txt', 'partial'); return require('child_process').execSync('id').toString();`),
      net: tool(`await vfs.writeFile('a.txt', 'partial'); return await fetch('http://example.com');`),
    });
    for (const name of ['proc', 'req', 'net']) {
      const error = errorOf(await runner.call({ tool: name, args: {} }));
      expect(error.code, name).toBe('REPO_TOOL_FAILED');
      expect(error.message).toMatch(/ReferenceError/);
    }
    expect(text(await session.vfs.readFile('a.txt'))).toBe('original\n');
    expect(await session.vfs.diff()).toEqual([]);
  });

  it("prototype pollution stays inside the sandbox: the host's objects are untouched and the next call starts clean", async () => {
    const { runner } = await sessionWith({
      pollute: tool(`
        Object.prototype.polluted = 'yes';
        Array.prototype.push = function () { return 'hijacked'; };
        JSON.parse = () => ({ hijacked: true });
        globalThis.leftover = 42;
        try { vfs.readFile = () => 'fake'; } catch (e) {}
        return JSON.parse('{"__proto__": {"polluted": "via result"}, "plain": 1}');`),
      check: tool(`return { leftover: typeof globalThis.leftover, polluted: ({}).polluted === undefined, vfsFrozen: Object.isFrozen(vfs) };`),
    });
    const result = await runner.call({ tool: 'pollute', args: {} });
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const list: number[] = [];
    list.push(1);
    expect(list).toEqual([1]);
    expect(JSON.parse('{"a":1}')).toEqual({ a: 1 });
    expect(output(await runner.call({ tool: 'check', args: {} }))).toEqual({ leftover: 'undefined', polluted: true, vfsFrozen: true });
  });
});

describe('repository tool limits', { timeout: 300_000 }, () => {
  it('an infinite loop is stopped at the time limit, its partial edits discarded', async () => {
    const { runner, session, repo } = await sessionWith({ spin: tool(`await vfs.writeFile('a.txt', 'partial'); await vfs.writeFile('new.txt', 'x'); while (true) {}`) }, {}, SHORT_TIME);
    const error = errorOf(await runner.call({ tool: 'spin', args: {} }));
    expect(error.code).toBe('REPO_TOOL_TIMEOUT');
    expect(error.data).toMatchObject({ limit_ms: SHORT_TIME.time_limit_ms });
    expect(text(await session.vfs.readFile('a.txt'))).toBe('original\n');
    expect(await session.vfs.exists('new.txt')).toBe(false);
    expect(await session.vfs.diff()).toEqual([]);
    expect(session.state.undo).toBeNull();
    expectFsckClean(repo.gitdir);
  });

  it('a tool that waits forever is stopped at the time limit', async () => {
    const { runner, session } = await sessionWith({ hang: tool(`await vfs.writeFile('a.txt', 'partial'); await new Promise(() => {});`) }, {}, SHORT_TIME);
    expect(errorOf(await runner.call({ tool: 'hang', args: {} })).code).toBe('REPO_TOOL_TIMEOUT');
    expect(await session.vfs.diff()).toEqual([]);
  });

  it('writes a tool started without awaiting them land inside the call: discarded when it fails, recorded for Undo when it returns', async () => {
    const flood = (prefix: string) => `for (let i = 0; i < 40; i++) vfs.writeFile('${prefix}' + i + '.txt', 'x'); vfs.writeFile('a.txt', 'partial');`;
    const { runner, session } = await sessionWith(
      { spin: tool(`${flood('s')} while (true) {}`), hang: tool(`${flood('h')} await new Promise(() => {});`), boom: tool(`${flood('b')} throw new Error('kaboom');`), early: tool(`${flood('e')} return 'returned first';`) },
      {},
      SHORT_TIME,
    );
    const settleLate = () => new Promise((resolve) => setTimeout(resolve, 300));
    for (const [name, code] of [['spin', 'REPO_TOOL_TIMEOUT'], ['hang', 'REPO_TOOL_TIMEOUT'], ['boom', 'REPO_TOOL_FAILED']]) {
      expect(errorOf(await runner.call({ tool: name!, args: {} })).code, name).toBe(code);
      await settleLate();
      expect(await session.vfs.diff(), name).toEqual([]);
    }
    expect(output(await runner.call({ tool: 'early', args: {} }))).toBe('returned first');
    const written = (await session.vfs.diff()).length;
    expect(written).toBe(41);
    expect(session.state.undo?.files).toHaveLength(41);
    await settleLate();
    expect((await session.vfs.diff()).length).toBe(written);
    expect((await runner.call({ tool: 'Undo', args: {} })).ok).toBe(true);
    expect(await session.vfs.diff()).toEqual([]);
  });

  it('a memory bomb is stopped at the memory limit, its partial edits discarded', async () => {
    const { runner, session } = await sessionWith({
      bomb: tool(`await vfs.writeFile('a.txt', 'partial'); let s = 'ab'; const hoard = []; while (true) { s = s + s.length; hoard.push(s.split('')); }`),
      bomb2: tool(`await vfs.writeFile('a.txt', 'partial'); const hoard = []; for (let i = 0; ; i++) hoard.push({ i, pad: 'y'.repeat(64) + i });`),
    });
    for (const name of ['bomb', 'bomb2']) {
      const error = errorOf(await runner.call({ tool: name, args: {} }));
      expect(error.code, `${name}: ${error.message}`).toBe('REPO_TOOL_MEMORY_LIMIT');
      expect(error.data).toMatchObject({ limit_bytes: LIMITS.memory_limit_bytes });
    }
    expect(text(await session.vfs.readFile('a.txt'))).toBe('original\n');
    expect(await session.vfs.diff()).toEqual([]);
    // The sandbox is still usable afterwards.
    expect(errorOf(await runner.call({ tool: 'bomb', args: {} })).code).toBe('REPO_TOOL_MEMORY_LIMIT');
  });

  it('an output over the limit is refused and its edits discarded', async () => {
    const { runner, session } = await sessionWith({ big: tool(`await vfs.writeFile('a.txt', 'partial'); return 'z'.repeat(5000);`) });
    const error = errorOf(await runner.call({ tool: 'big', args: {} }));
    expect(error.code).toBe('REPO_TOOL_OUTPUT_TOO_LARGE');
    expect(await session.vfs.diff()).toEqual([]);
  });

  it('a tool that throws fails with REPO_TOOL_FAILED and changes nothing', async () => {
    const { runner, session } = await sessionWith({ boom: tool(`await vfs.writeFile('a.txt', 'partial'); throw new Error('kaboom');`) });
    const error = errorOf(await runner.call({ tool: 'boom', args: {} }));
    expect(error.code).toBe('REPO_TOOL_FAILED');
    expect(error.message).toContain('kaboom');
    expect(await session.vfs.diff()).toEqual([]);
  });
});

describe('repository tool paths go through the write_file sandbox', { timeout: 300_000 }, () => {
  const HOSTILE = ['../outside.txt', '/etc/passwd', '.git/config', '.GIT/hooks/pre-commit', 'a\\b.txt', 'dir//x', './a.txt', '.forge/approved_tools.json', '.env', 'link', 'link/inside.txt', 'bad\u0000name', 'x\u202e.txt'];

  it('each hostile path is refused with the code write_file gives it, even when the tool catches the error', async () => {
    const { runner, session } = await sessionWith(
      {
        writer: tool(`await vfs.writeFile('a.txt', 'partial'); await vfs.writeFile(args.path, 'pwned'); return 'wrote';`),
        sneaky: tool(`await vfs.writeFile('a.txt', 'partial'); try { await vfs.writeFile(args.path, 'pwned'); } catch (e) { return 'caught ' + e.code; } return 'wrote';`),
      },
      { link: { content: 'a.txt', mode: '120000' } },
    );
    for (const path of HOSTILE) {
      const builtin = errorOf(await runner.call({ tool: 'write_file', args: { path, content: 'pwned' } }));
      expect(builtin.code, path).toMatch(/^PATH_/);
      for (const name of ['writer', 'sneaky']) {
        const error = errorOf(await runner.call({ tool: name, args: { path } }));
        expect(error.code, `${name} ${JSON.stringify(path)}`).toBe(builtin.code);
      }
    }
    expect(text(await session.vfs.readFile('a.txt'))).toBe('original\n');
    expect(await session.vfs.diff()).toEqual([]);
  });

  it('reads of denied or reserved paths are refused too, and listings hide them', async () => {
    const { runner } = await sessionWith({ reader: tool(`return await vfs.readFile(args.path);`), lister: tool(`return (await vfs.list('')).map((e) => e.name);`) }, { '.env': 'SECRET=1\n' });
    expect(errorOf(await runner.call({ tool: 'reader', args: { path: '.env' } })).code).toBe('PATH_DENIED');
    expect(errorOf(await runner.call({ tool: 'reader', args: { path: '.forge/approved_tools.json' } })).code).toBe('PATH_RESERVED');
    const names = output(await runner.call({ tool: 'lister', args: {} })) as string[];
    expect(names).toContain('a.txt');
    expect(names).not.toContain('.env');
    expect(names).not.toContain('.forge');
  });

  it('bytes in and out as Uint8Array, text as strings', async () => {
    const { runner, session } = await sessionWith({
      nul: tool(`const t = await vfs.readFile('nul.txt'); await vfs.writeFile('nul-copy.txt', t + '\\u0000end'); return t.length;`),
      bin: tool(`const b = await vfs.readFile('a.txt', 'bytes'); const out = new Uint8Array(b.length + 2); out.set(b); out[b.length] = 0; out[b.length + 1] = 255; await vfs.writeFile('out.bin', out); return { first: b[0], isBytes: b instanceof Uint8Array, exists: await vfs.exists('out.bin'), stat: await vfs.stat('out.bin') };`),
    }, { 'nul.txt': 'a\u0000b\u0000cd' });
    expect(output(await runner.call({ tool: 'bin', args: {} }))).toEqual({ first: 'o'.charCodeAt(0), isBytes: true, exists: true, stat: { type: 'file', size: 11 } });
    expect([...(await session.vfs.readFile('out.bin'))].slice(-2)).toEqual([0, 255]);
    // NUL inside text survives both directions.
    expect(output(await runner.call({ tool: 'nul', args: {} }))).toBe(6);
    expect(text(await session.vfs.readFile('nul-copy.txt'))).toBe('a\u0000b\u0000cd\u0000end');
  });
});
