/**
 * Repository tools (issue 18) through `forge-engine/browser`'s API, run unchanged in Node and in
 * Chromium (test/browser/repo-tools.test.ts), with a fixed clock and identity so that every oid
 * must be the same everywhere. Like scenario.ts it takes the engine as a parameter (src/browser.ts
 * in Node, dist/browser.js in the page) and imports nothing but types; the caller makes the
 * sandbox, as each runtime loads QuickJS its own way.
 *
 * The history: two tools approved on main through the library (two approval commits), a session
 * whose one turn calls the approved `upper` (it edits a file and writes a new one), the never
 * approved `lower` (refused: TOOL_NOT_APPROVED) and the approved `spin`, which writes a file and
 * then loops forever (stopped at the time limit, its write discarded), then commits the turn.
 */
import type * as Forge from '../../src/browser';
import { reachableObjects } from './scenario';

type ForgeApi = typeof Forge;

export const REPO_TOOL_FILES: Record<string, string> = {
  'src/a.txt': 'alpha\nbeta\n',
  'src/b.txt': 'untouched\n',
  'tools/upper.js': `export const description = 'Upper-cases a file and records its size and its neighbours.';
export const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
export async function execute(vfs, args) {
  const text = await vfs.readFile(args.path);
  await vfs.writeFile(args.path, text.toUpperCase());
  const names = (await vfs.list('src')).map((entry) => entry.name);
  await vfs.writeFile('src/sizes.bin', new Uint8Array([text.length, names.length, 0, 255]));
  return { path: args.path, bytes: text.length, neighbours: names };
}
`,
  'tools/lower.js': `export const description = 'Lower-cases a file (never approved).';
export const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
export async function execute(vfs, args) {
  await vfs.writeFile(args.path, (await vfs.readFile(args.path)).toLowerCase());
}
`,
  'tools/spin.js': `export const description = 'Writes a file, then never ends.';
export const schema = { type: 'object', properties: {} };
export async function execute(vfs) {
  await vfs.writeFile('src/partial.txt', 'written before the loop\\n');
  for (;;) {}
}
`,
};

/** Short, so the test is quick; the default is 2 s. */
export const SPIN_LIMIT_MS = 400;

const FIXED_TIME = new Date('2024-01-02T03:04:05.000Z');
const IDENTITY = { name: 'Forge Test', email: 'forge-test@example.invalid', timestamp: FIXED_TIME.getTime() / 1000, timezoneOffset: 0 };

export interface RepoToolOutcome {
  refs: Array<{ ref: string; oid: string }>;
  /** Every object reachable from the refs ("<oid> <type>"), sorted. */
  objects: string[];
  /** Commit oids: the two approvals and the turn. */
  steps: Record<string, string>;
  /** The turn commit's tree and the blobs of the files the tool wrote. */
  tree: string;
  blobs: Record<string, string>;
  /** The turn's files as text (sizes.bin as its bytes). */
  files: Record<string, string>;
  /** Each repository tool's state as the session's view sees it. */
  states: string[];
  upperOutput: unknown;
  errors: Record<string, { code: string; data?: unknown }>;
  /** Not compared across runtimes: how long the infinite loop ran before it was stopped. */
  spinMs: number;
  partialLeft: boolean;
  pendingAfterCalls: string[];
}

export async function runRepoToolScenario(
  api: ForgeApi,
  fs: Forge.GitFs,
  gitdir: string,
  sandbox: Forge.WasmSandbox,
  platform?: Forge.GitPlatform,
): Promise<RepoToolOutcome> {
  const repo = await api.Repository.open({ fs, gitdir, ...(platform ? { platform } : {}) });
  const reservedNames = new Set(api.BUILTIN_TOOLS.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
  const hash = (bytes: Uint8Array) => repo.sha256Hex(bytes);
  const steps: Record<string, string> = {};

  // A person's step, through the library (the CLI's `forge tools approve` calls the same function).
  for (const name of ['upper', 'spin']) {
    const approved = await api.approveRepoTool(repo, { name, reservedNames, hash, approver: IDENTITY, now: FIXED_TIME });
    steps[`approve_${name}`] = approved.commit ?? 'none';
  }

  const store = new api.SessionStore(repo, () => new Date(FIXED_TIME));
  const session = await store.create({ id: 'tools', base: 'main', author: IDENTITY });
  const { registry, repoTools, problems } = await api.registryWithRepoTools(api.BUILTIN_TOOLS, session.vfs, { sandbox, trust: new api.LocalToolTrust(repo), limits: { time_limit_ms: SPIN_LIMIT_MS } });
  if (problems.length > 0) throw new Error(`tools that do not load: ${problems.map((p) => `${p.tool}: ${p.error.message}`).join('; ')}`);
  const states = (await repoTools.scan(session.vfs)).map((s) => `${s.name}:${s.state}`);
  const runner = new api.SessionToolRunner(session, { approval: api.allowAll, registry });
  await session.recordUserMessage('Upper-case src/a.txt with the repository tool.');

  const upper = await runner.call({ tool: 'upper', args: { path: 'src/a.txt' } });
  if (!upper.ok) throw new Error(`upper: ${upper.error.code}: ${upper.error.message}`);

  const errors: RepoToolOutcome['errors'] = {};
  const refused = async (tool: string, args: Record<string, unknown>) => {
    const result = await runner.call({ tool, args });
    return result.ok ? { code: 'ok' } : { code: result.error.code, ...(result.error.data !== undefined ? { data: result.error.data } : {}) };
  };
  errors.unapproved = await refused('lower', { path: 'src/a.txt' });
  const started = performance.now();
  errors.spin = await refused('spin', {});
  const spinMs = performance.now() - started;
  const partialLeft = await session.vfs.exists('src/partial.txt');
  const pendingAfterCalls = (await session.vfs.diff()).map((change) => `${change.kind} ${change.path}`).sort();

  const turn = await session.commitTurn({ message: 'Upper-case a.txt with a repository tool', author: IDENTITY });
  steps.turn = turn.commit;
  const commit = await repo.readCommit(turn.commit);
  const view = new api.CommitVfs(repo, turn.commit, commit.tree);
  const blobs: Record<string, string> = {};
  const files: Record<string, string> = {};
  for (const path of ['src/a.txt', 'src/b.txt', 'src/sizes.bin']) {
    blobs[path] = (await view.stat(path))?.oid ?? 'missing';
    const bytes = await view.readFile(path);
    files[path] = path.endsWith('.bin') ? [...bytes].join(',') : new TextDecoder().decode(bytes);
  }

  const refs = await repo.refs.list('refs/');
  return {
    refs,
    objects: await reachableObjects(repo, refs.map((r) => r.oid)),
    steps,
    tree: commit.tree,
    blobs,
    files,
    states,
    upperOutput: upper.output,
    errors,
    spinMs,
    partialLeft,
    pendingAfterCalls,
  };
}

