/**
 * The launcher's choice of bundle (scripts/cli-launcher.cjs, src/cli/command-groups.ts): a command
 * of a group runs its group's bundle (dist/forge-<group>.cjs), everything else, and a group command
 * with an option that needs what the group bundle leaves out, runs dist/forge.cjs; either way the
 * command behaves the same. Which bundle ran is seen from outside by the code cache it leaves
 * (named by bundle and build id) in a fresh $XDG_CACHE_HOME.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/command-groups';
import { FORGE_BIN } from '../helpers/forge-cli';
import { hermeticGitEnv } from '../helpers/git-cli';
import { makeRepo, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const DIST = resolve(FORGE_BIN, '..');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  /** The code caches the run left in its own cache directory. */
  caches: string[];
}

/** `node <script> ...args` with a cache directory of its own (script: the launcher, or a bundle run directly). */
function run(script: string, args: string[], options: { input?: string; node?: string[] } = {}): Run {
  const cacheHome = makeTempDir('bundle-cache');
  const result = spawnSync(process.execPath, [...(options.node ?? []), script, ...args], {
    encoding: 'utf8',
    input: options.input,
    env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', XDG_CACHE_HOME: cacheHome },
  });
  let caches: string[] = [];
  try {
    caches = readdirSync(join(cacheHome, 'forge')).sort();
  } catch {
    caches = [];
  }
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, caches };
}

const launcher = (args: string[], options?: { input?: string; node?: string[] }) => run(FORGE_BIN, args, options);
const bundle = (name: string, args: string[]) => run(join(DIST, name), args);
/** The bundle a launcher run loaded, from the cache it wrote ("forge-view.<id>.cache" -> "forge-view.cjs"). */
const bundleOf = (r: Run) => r.caches.map((c) => c.replace(/\.[0-9a-f]{16}\.cache$/, '.cjs'));

describe('the launcher runs a group command from its group bundle', () => {
  let repo: RepoHandle;
  beforeAll(() => {
    repo = makeRepo({ files: { 'a.txt': 'a\n', 'dir/b.txt': 'b\n' } });
    expect(launcher(['session', 'new', '--repo', repo.dir, '--id', 's1']).status).toBe(0);
    const calls = [{ tool: 'write_file', args: { path: 'c.txt', content: 'c from s1\n' } }];
    expect(launcher(['turn', '--repo', repo.dir, '--session', 's1', '--calls', '-'], { input: JSON.stringify(calls) }).status).toBe(0);
  });

  it.each([
    [['cat', 'a.txt'], 'forge-view.cjs'],
    [['ls'], 'forge-view.cjs'],
    [['diff', 's1', '--stat'], 'forge-merge.cjs'],
    [['merge', 's1', '--dry-run'], 'forge-merge.cjs'],
    // Not a group command (rebase rewrites session state: it stays in forge.cjs), or a group
    // command with an option that reaches the modules its bundle leaves out.
    [['log', 's1'], 'forge.cjs'],
    [['rebase', 's1', '--onto', 'main'], 'forge.cjs'],
    [['cat', 'a.txt', '--session', 's1'], 'forge.cjs'],
    [['ls', '--session=s1'], 'forge.cjs'],
  ])('forge %j runs %s', (args, expected) => {
    const r = launcher([...args, '--repo', repo.dir]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(bundleOf(r)).toEqual([expected]);
  });

  it('finds the command word after the global options, as src/cli/globals.ts takes them', () => {
    for (const globals of [['-C', repo.dir], [`-C${repo.dir}`], ['--repo', repo.dir], [`--repo=${repo.dir}`], ['--no-color', '-C', repo.dir, '-q'], ['--quiet', '-C', repo.dir]]) {
      const r = launcher([...globals, 'cat', 'dir/b.txt']);
      expect([r.status, r.stdout, r.stderr, bundleOf(r)]).toEqual([0, 'b\n', '', ['forge-view.cjs']]);
    }
    // Not a command word: help, a flag before the command, -C without its directory.
    for (const args of [['help', 'cat'], ['--json', 'cat', 'a.txt'], ['-C'], ['--version']]) expect(bundleOf(launcher(args))).toEqual(['forge.cjs']);
  });

  it('a group command reads the same through either bundle, and a session view through forge.cjs', () => {
    expect(launcher(['cat', 'a.txt', '--repo', repo.dir]).stdout).toBe('a\n');
    expect(launcher(['cat', 'c.txt', '--repo', repo.dir, '--session', 's1']).stdout).toBe('c from s1\n');
    expect(launcher(['ls', '--repo', repo.dir, '--session', 's1']).stdout).toBe('.forge/sessions/s1.json\na.txt\nc.txt\ndir/b.txt\n');
    const direct = bundle('forge.cjs', ['diff', 's1', '--stat', '--repo', repo.dir]);
    expect(launcher(['diff', 's1', '--stat', '--repo', repo.dir]).stdout).toBe(direct.stdout);
    expect(direct.stdout).toMatch(/1 file changed/);
  });

  it('usage errors, unknown sessions and help print the same, with the same exit code, as from forge.cjs', () => {
    for (const args of [['cat'], ['ls', '--bogus'], ['cat', 'no-such-file'], ['cat', '--help'], ['ls', '-h'], ['merge', 's2', '--dry-run'], ['diff', 's2'], ['diff', '--help'], ['merge', 's1', '--rev', 'x']]) {
      const full = bundle('forge.cjs', [...args, '--repo', repo.dir]);
      const routed = launcher([...args, '--repo', repo.dir]);
      expect(bundleOf(routed)[0]).toMatch(/^forge-(view|merge)\.cjs$/);
      expect({ status: routed.status, stdout: routed.stdout, stderr: routed.stderr }).toEqual({ status: full.status, stdout: full.stdout, stderr: full.stderr });
    }
    // The unknown session got its "did you mean" from the group bundle too.
    expect(launcher(['diff', 's2', '--repo', repo.dir]).stderr).toMatch(/^forge: error SESSION_NOT_FOUND: .*did you mean s1\?/);
  });
});

describe('the group bundles', () => {
  it.each(Object.entries(COMMAND_GROUPS))('forge-%s.cjs registers the commands the launcher sends it, with the help forge.cjs gives', (group, spec) => {
    const help = bundle(`forge-${group}.cjs`, ['--help']);
    expect(help.status).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
    for (const command of spec.commands) {
      expect(listed).toContain(command);
      expect(bundle(`forge-${group}.cjs`, [command, '--help']).stdout).toBe(bundle('forge.cjs', [command, '--help']).stdout);
    }
    // The launcher's table (written into dist/cli.cjs by the build) sends it these commands.
    const table = JSON.parse(/new Map\(Object\.entries\((\{.*?\})\)\)/.exec(readFileSync(FORGE_BIN, 'utf8'))![1]!) as Record<string, { bundle: string; fullBundleFor: string[]; v8Flags: string[] }>;
    expect(Object.keys(table).filter((command) => table[command]!.bundle === `forge-${group}.cjs`).sort()).toEqual([...spec.commands].sort());
    const flags: readonly string[] = 'v8Flags' in spec ? spec.v8Flags : [];
    for (const command of spec.commands) expect(table[command]!.v8Flags).toEqual(flags);
  });

  it("forge-merge.cjs is compiled under its V8 flags: its code cache is V8's for those flags, kept from run to run", () => {
    const flags = COMMAND_GROUPS.merge.v8Flags;
    expect(flags.length).toBeGreaterThan(0);
    const cacheHome = makeTempDir('bundle-cache-flags');
    const env = { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', XDG_CACHE_HOME: cacheHome };
    const diff = () => expect(spawnSync(process.execPath, [FORGE_BIN, 'diff', '--help'], { encoding: 'utf8', env }).status).toBe(0);
    diff();
    const [cache] = readdirSync(join(cacheHome, 'forge'));
    const path = join(cacheHome, 'forge', cache!);
    const written = statSync(path).ino;
    diff();
    expect(statSync(path).ino).toBe(written); // accepted, not written again
    // V8 accepts a cache only under the flags it was made with.
    const accepted = (set: readonly string[]) => {
      const script = `for (const f of ${JSON.stringify(set)}) require('node:v8').setFlagsFromString(f);
        const fs = require('node:fs'); const file = ${JSON.stringify(join(DIST, 'forge-merge.cjs'))};
        const s = new (require('node:vm').Script)('(function (exports, require, module, __filename, __dirname) {' + fs.readFileSync(file, 'utf8') + '\\n})', { filename: file, cachedData: fs.readFileSync(${JSON.stringify(path)}) });
        process.stdout.write(String(!s.cachedDataRejected));`;
      return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env }).stdout;
    };
    expect([accepted(flags), accepted([])]).toEqual(['true', 'false']);
  });

  it('a left-out module fails loudly if a group bundle is run for an option that needs it (the launcher never does)', () => {
    const r = bundle('forge-view.cjs', ['cat', 'a.txt', '--session', 's1', '--repo', makeRepo({ files: { 'a.txt': 'a\n' } }).dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^forge: error INTERNAL: forge-view\.cjs does not hold src\/cli\/open\.ts:\.\.\/session/);
  });
});

describe('code caches', () => {
  it('one per bundle, all named by the same build id; another build id is removed when a cache is written', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const cacheHome = makeTempDir('bundle-cache-shared');
    const env = { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', XDG_CACHE_HOME: cacheHome };
    const forgeIn = (args: string[]) => spawnSync(process.execPath, [FORGE_BIN, ...args, '--repo', repo.dir], { encoding: 'utf8', env });
    expect(forgeIn(['cat', 'a.txt']).status).toBe(0);
    const stale = join(cacheHome, 'forge', 'forge-view.0123456789abcdef.cache');
    writeFileSync(stale, 'an older build');
    expect(forgeIn(['log', '--grep', 'x']).status).toBe(0);
    const caches = readdirSync(join(cacheHome, 'forge')).sort();
    expect(caches).toEqual([expect.stringMatching(/^forge-view\.[0-9a-f]{16}\.cache$/), expect.stringMatching(/^forge\.[0-9a-f]{16}\.cache$/)]);
    expect(new Set(caches.map((c) => c.split('.')[1])).size).toBe(1);
  });
});

describe('built-in modules loaded on first use', () => {
  it('forge cat loads neither node:crypto nor node:child_process nor perf_hooks; a turn hashes with node:crypto', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const dir = makeTempDir('module-list');
    const preload = join(dir, 'loaded.cjs');
    const out = join(dir, 'loaded.txt');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const loaded = (args: string[], input?: string) => {
      const r = launcher([...args, '--repo', repo.dir], { node: ['--require', preload], ...(input !== undefined ? { input } : {}) });
      expect([r.status, r.stderr]).toEqual([0, '']);
      return readFileSync(out, 'utf8').split('\n');
    };
    const cat = loaded(['cat', 'a.txt']);
    for (const module of ['NativeModule crypto', 'NativeModule child_process', 'NativeModule perf_hooks']) expect(cat).not.toContain(module);
    expect(cat).toContain('NativeModule zlib');
    expect(launcher(['session', 'new', '--id', 's', '--repo', repo.dir]).status).toBe(0);
    const calls = [{ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }];
    expect(loaded(['turn', '--session', 's', '--calls', '-'], JSON.stringify(calls))).toContain('NativeModule crypto');
  });

  it('a dry-run merge does not load fs/promises (the working-tree sync it never runs uses it)', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const dir = makeTempDir('module-list-merge');
    const preload = join(dir, 'loaded.cjs');
    const out = join(dir, 'loaded.txt');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    expect(launcher(['session', 'new', '--id', 's', '--repo', repo.dir]).status).toBe(0);
    const calls = [{ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }];
    expect(launcher(['turn', '--session', 's', '--calls', '-', '--repo', repo.dir], { input: JSON.stringify(calls) }).status).toBe(0);
    const r = launcher(['merge', 's', '--into', 'main', '--no-ff', '--dry-run', '--json', '--repo', repo.dir], { node: ['--require', preload] });
    expect([r.status, r.stderr, JSON.parse(r.stdout).status]).toEqual([0, '', 'merged']);
    const modules = readFileSync(out, 'utf8').split('\n');
    expect(modules).toContain('NativeModule zlib');
    expect(modules).not.toContain('NativeModule fs/promises');
  });
});
