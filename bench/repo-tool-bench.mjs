// Repository tools (issue 18): a warm call of a repository tool that reads and writes one file,
// against write_file doing the same write through the same registry and session view (the
// difference is the sandbox: a fresh QuickJS context, the module evaluated, the vfs bridge);
// and the first load of a tool in a process (WebAssembly module + the tool's module evaluated).
// Usage: node bench/repo-tool-bench.mjs [runs]   (prints one JSON object; dist/ must be built)
import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './bench-kit.mjs';

const dist = process.env.FORGE_BENCH_DIST ?? new URL('../dist/', import.meta.url).pathname;
const forge = await import(join(dist, 'index.js'));
const runs = Number(process.argv[2] ?? 30);


const TOOL = `export const description = 'Appends a line to a file.';
export const schema = { type: 'object', properties: { path: { type: 'string' }, line: { type: 'string' } }, required: ['path', 'line'] };
export async function execute(vfs, args) {
  const text = await vfs.readFile(args.path);
  const next = text.slice(0, text.lastIndexOf('\\n', text.length - 2) + 1) + args.line + '\\n';
  await vfs.writeFile(args.path, next);
  return { bytes: next.length };
}
`;
const base = Array.from({ length: 200 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';

const dir = mkdtempSync(join(tmpdir(), 'forge-repo-tool-bench-'));
try {
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
  git('init', '-q', '-b', 'main');
  fs.mkdirSync(join(dir, 'tools'));
  fs.writeFileSync(join(dir, 'tools/append_line.js'), TOOL);
  fs.writeFileSync(join(dir, 'file.js'), base);
  git('add', '.');
  git('commit', '-qm', 'bench files');
  const repo = await forge.Repository.open({ fs, dir, platform: forge.nodePlatform });
  const reservedNames = new Set(forge.BUILTIN_TOOLS.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
  await forge.approveRepoTool(repo, { name: 'append_line', reservedNames, hash: (b) => repo.platform.sha256Hex(b), worktree: forge.nodeWorktreeSync() });
  const session = await new forge.SessionStore(repo).create({ id: 'repo-tool-bench', base: 'main' });

  // First load in this process: the WebAssembly module compiled and instantiated, the tool's module evaluated once.
  let t = performance.now();
  const { registry } = await forge.registryWithRepoTools(forge.BUILTIN_TOOLS, session.vfs, { sandbox: new forge.QuickJsSandbox(), trust: new forge.LocalToolTrust(repo) });
  const firstLoad = performance.now() - t;
  if (!registry.get('append_line')) throw new Error('the tool did not load');
  const tools = new forge.SessionToolRunner(session, { approval: forge.allowAll, registry });
  const expectOk = (r) => {
    if (!r.ok) throw new Error(`${r.tool}: ${r.error.code}: ${r.error.message}`);
  };

  const repoTool = [];
  const writeFile = [];
  for (let i = 0; i < runs + 3; i++) {
    // The same work both ways: read file.js, replace its last line, write it.
    t = performance.now();
    expectOk(await tools.call({ tool: 'append_line', args: { path: 'file.js', line: `// repo tool ${i}` } }));
    const a = performance.now() - t;
    expectOk(await tools.call({ tool: 'read_file', args: { path: 'file.js', start_line: 1, end_line: 1 } }));
    t = performance.now();
    const current = new TextDecoder().decode(await session.vfs.readFile('file.js'));
    const next = current.slice(0, current.lastIndexOf('\n', current.length - 2) + 1) + `// write_file ${i}\n`;
    expectOk(await tools.call({ tool: 'write_file', args: { path: 'file.js', content: next } }));
    const b = performance.now() - t;
    if (i >= 3) {
      repoTool.push(a);
      writeFile.push(b);
    }
  }
  const repoToolMs = median(repoTool);
  const writeFileMs = median(writeFile);
  // The fastest samples too: on a shared, loaded machine the medians carry scheduling noise.
  const repoToolMinMs = Math.min(...repoTool);
  const writeFileMinMs = Math.min(...writeFile);
  console.log(JSON.stringify({ runs, firstLoadMs: firstLoad, repoToolMs, writeFileMs, overheadMs: repoToolMs - writeFileMs, repoToolMinMs, writeFileMinMs, overheadMinMs: repoToolMinMs - writeFileMinMs }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
