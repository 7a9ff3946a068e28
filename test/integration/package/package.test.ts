/**
 * The package as a user gets it: the tarball's contents (`npm pack --dry-run --json`), and a
 * consumer project that compiles the README's library example with `tsc --strict` under node16
 * and bundler module resolution, against the packed files only, then runs it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forge } from '../../helpers/forge-cli';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';
import { installPacked, packedFiles, type PackedFile } from './pack';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };

/** The ```ts block of the README's "The library" section, as written. */
function readmeLibraryExample(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## The library'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md has no ```ts block under "## The library"');
  return match[1]!;
}

function tsc(project: string, config: object): { status: number; output: string } {
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config));
  const result = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8' });
  return { status: result.status ?? -1, output: result.stdout + result.stderr };
}

describe('the package', () => {
  let files: PackedFile[];
  beforeAll(() => {
    // A CLI run first: a launcher that kept its code cache beside the bundle would put it in the tarball.
    expect(forge(['--version']).status).toBe(0);
    files = packedFiles();
  });

  it('packs the library, its declarations, the CLI with the inspector page, the README and a LICENSE matching package.json', () => {
    const paths = files.map((f) => f.path);
    // forge inspect serves the page from beside the bundle (dist/inspect/, read at start-up).
    const page = ['dist/inspect/index.html', 'dist/inspect/app.js', 'dist/inspect/app.css'];
    for (const required of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/cli.js', 'dist/cli.cjs', 'dist/forge.cjs', 'dist/types/index.d.ts', ...page]) expect(paths).toContain(required);
    expect(readFileSync('LICENSE', 'utf8').split('\n')[0]).toBe(`${pkg.license} License`);
  });

  it('packs every bundle the launcher may run (the group bundles beside forge.cjs)', () => {
    const named = [...new Set(readFileSync('dist/cli.cjs', 'utf8').match(/forge-[a-z]+\.cjs/g) ?? [])];
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(files.map((f) => f.path)).toContain(`dist/${name}`);
  });

  it('packs no source maps, code caches, temporary files, build info or sources', () => {
    const unwanted = files.map((f) => f.path).filter((p) => /\.(map|cache|tmp|tsbuildinfo)$/.test(p) || p.startsWith('src/') || p.startsWith('test/') || /(^|\/)\./.test(p));
    expect(unwanted).toEqual([]);
  });

  describe("a consumer of the README's library example", () => {
    let project: string;
    let handle: ReturnType<typeof makeRepo>;
    beforeAll(() => {
      project = makeTempDir('consumer');
      installPacked(project, files);
      handle = makeRepo({ files: { 'src/foo.ts': 'export const foo = 1;\n' } });
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
      writeFileSync(join(project, 'example.ts'), readmeLibraryExample().replace("'/path/to/repo'", JSON.stringify(handle.dir)));
    });
    const strict = { strict: true, target: 'ES2022', types: ['node'] };

    it('type-checks with tsc --strict under bundler resolution', () => {
      // skipLibCheck as most projects have it; the node16 case below checks the declarations themselves.
      const result = tsc(project, { compilerOptions: { ...strict, skipLibCheck: true, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }, files: ['example.ts'] });
      expect(result.output).toBe('');
      expect(result.status).toBe(0);
    }, 300_000);

    it('compiles with tsc --strict under node16 resolution (declarations checked too), and runs', () => {
      const result = tsc(project, { compilerOptions: { ...strict, skipLibCheck: false, module: 'Node16', moduleResolution: 'Node16', outDir: 'out' }, files: ['example.ts'] });
      expect(result.output).toBe('');
      expect(result.status).toBe(0);

      const run = spawnSync(process.execPath, [join(project, 'out', 'example.js')], { cwd: project, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      // What the example did, read back with git: a session whose turn changed foo to bar, and the resumed session.
      const branches = git(handle.dir, ['for-each-ref', '--format=%(refname)', 'refs/heads/forge/session/']).stdout.trim().split('\n');
      expect(branches).toHaveLength(2);
      const contents = branches.map((ref) => git(handle.dir, ['show', `${ref}:src/foo.ts`]).stdout);
      expect(contents).toEqual(['export const bar = 1;\n', 'export const bar = 1;\n']);
      expectFsckClean(handle.gitdir);
    }, 300_000);
  });
});
