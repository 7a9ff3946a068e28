// Repository-tool limits (issue 24): how long a hostile tool runs before it is stopped, and how
// far the process's RSS grows meanwhile, through the sandbox the CLI uses (a worker thread the
// host terminates at the deadline). Default limits (2 s, 64 MiB). Usage, after npm run build:
//   node bench/repo-tool-limits.mjs
import { resolve } from 'node:path';
import { DEFAULT_REPO_TOOL_LIMITS, NodeWorkerSandbox } from '../dist/index.js';

const limits = DEFAULT_REPO_TOOL_LIMITS;
const entry = resolve('dist/repo-tool-worker.cjs');
const files = new Map();
const vfs = {
  readFile: async (p) => files.get(p) ?? new Uint8Array(),
  writeFile: async (p, c) => void files.set(p, c),
  deleteFile: async (p) => void files.delete(p),
  exists: async (p) => files.has(p),
  list: async () => [],
  stat: async () => null,
};
const tool = (body) => `export const description = 'bench';\nexport const schema = { type: 'object' };\nexport async function execute(vfs, args) {\n${body}\n}\n`;

const CASES = {
  'includes over a 2**53-1 length': 'return Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1);',
  'indexOf over a 2**53-1 length': 'return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1);',
  'sort of 2,000,000 strings': "const a = []; for (let i = 0; i < 2000000; i++) a.push('k' + ((i * 7919) % 2000003)); a.sort(); return a.length;",
  'a loop of 1 MiB buffers': 'const kept = []; while (true) kept.push(new Uint8Array(1 << 20));',
  'a loop of 1 MiB buffers, failure caught': 'const kept = []; try { while (true) kept.push(new Uint8Array(1 << 20)); } catch { return kept.length; }',
  'deep recursion': 'const f = (n) => f(n + 1) + 1; return f(0);',
  '3,000 un-awaited 1 MiB writes': "const s = 'y'.repeat(1 << 20); for (let i = 0; i < 3000; i++) vfs.writeFile('big' + i, s); return 1;",
  'an infinite loop': 'while (true) {}',
};

const mib = (bytes) => (bytes / (1 << 20)).toFixed(0);
console.log(`limits: ${limits.time_limit_ms} ms, ${mib(limits.memory_limit_bytes)} MiB; RSS before: ${mib(process.memoryUsage().rss)} MiB`);
for (const [name, body] of Object.entries(CASES)) {
  // A warm worker, as in a running forge mcp: its start-up (hundreds of ms under load) is not the tool's time.
  const sandbox = new NodeWorkerSandbox({ entry });
  await sandbox.execute(tool('return 1;'), 'tools/warm.js', vfs, {}, limits);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const start = performance.now();
  const outcome = await sandbox.execute(tool(body), 'tools/bench.js', vfs, {}, limits).then(
    (json) => `returned ${json}`,
    (error) => error.code ?? String(error),
  );
  const ms = performance.now() - start;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(`${name.padEnd(42)} ${outcome.padEnd(24)} stopped after ${ms.toFixed(0).padStart(5)} ms; peak RSS ${mib(peak)} MiB (+${mib(peak - before)})`);
  files.clear();
  await sandbox.close();
}
