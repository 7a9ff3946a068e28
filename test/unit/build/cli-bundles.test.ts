/**
 * What scripts/build.mjs does to the CLI's bundles (scripts/cli-bundles.mjs), on small bundles
 * built here: a built-in module of LAZY_BUILTINS is loaded when a property of it is first read and
 * the bundle stays strict code; a group bundle's dynamic imports are left out only when listed,
 * and a left-out module throws if it ever runs.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAZY_BUILTINS, LAZY_BUILTINS_BANNER, leaveOutDynamicImports, withLazyBuiltins } from '../../../scripts/cli-bundles.mjs';
import { makeTempDir } from '../../helpers/temp';

async function bundleOf(dir: string, sources: Record<string, string>, options: BuildOptions = {}): Promise<string> {
  for (const [name, text] of Object.entries(sources)) writeFileSync(join(dir, name), text);
  const result = await build({ entryPoints: [join(dir, 'entry.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', write: false, logLevel: 'silent', outfile: join(dir, 'out.cjs'), ...options });
  return Buffer.from(result.outputFiles![0]!.contents).toString('utf8');
}

function runBundle(dir: string, text: string): { status: number; stdout: string; stderr: string } {
  const file = join(dir, 'bundle.cjs');
  writeFileSync(file, text);
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('built-in modules required on first use', () => {
  it('node:crypto and node:child_process load when first read, named or as a namespace, and the bundle stays strict', async () => {
    expect(LAZY_BUILTINS).toEqual(['node:crypto', 'node:child_process']);
    const dir = makeTempDir('lazy-builtins');
    const entry = [
      "import { createHash } from 'node:crypto';",
      "import * as childProcess from 'node:child_process';",
      "const loaded = (name: string) => (process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes(`NativeModule ${name}`);",
      'const before = { crypto: loaded("crypto"), childProcess: loaded("child_process") };',
      "const hex = createHash('sha1').update('x').digest('hex');",
      'const afterHash = { crypto: loaded("crypto"), childProcess: loaded("child_process") };',
      "const spawn = typeof childProcess.spawnSync;",
      'const strict = (function (this: unknown) { return this === undefined; })();',
      'console.log(JSON.stringify({ before, hex, afterHash, spawn, strict }));',
    ].join('\n');
    const text = await bundleOf(dir, { 'entry.ts': entry }, { banner: { js: LAZY_BUILTINS_BANNER } });
    const lazy = withLazyBuiltins({ 'bundle.cjs': text, 'bundle.cjs.map': 'left as it is' });
    expect(lazy['bundle.cjs.map']).toBe('left as it is');
    const out = runBundle(dir, lazy['bundle.cjs'] as string);
    expect([out.status, out.stderr]).toEqual([0, '']);
    // A namespace import is copied by esbuild's __toESM, which reads every name: loaded at once, still right.
    expect(JSON.parse(out.stdout)).toEqual({
      before: { crypto: false, childProcess: true },
      hex: createHash('sha1').update('x').digest('hex'),
      afterHash: { crypto: true, childProcess: true },
      spawn: 'function',
      strict: true,
    });
    // The same bundle without the renaming loads crypto with the bundle.
    expect(JSON.parse(runBundle(dir, text).stdout).before.crypto).toBe(true);
  });

  it('refuses a bundle that lacks the banner or already uses its name', async () => {
    const dir = makeTempDir('lazy-builtins-refused');
    const plain = await bundleOf(dir, { 'entry.ts': "import { createHash } from 'node:crypto';\nconsole.log(createHash('sha1').digest('hex'));" });
    expect(() => withLazyBuiltins({ 'x.cjs': plain })).toThrow(/__lzreq is already a name in the bundle, or the bundle lacks the banner/);
    const taken = await bundleOf(dir, { 'entry.ts': 'const __lzreq = 1;\nconsole.log(__lzreq);' }, { banner: { js: LAZY_BUILTINS_BANNER } });
    expect(() => withLazyBuiltins({ 'x.cjs': taken })).toThrow(/__lzreq is already a name/);
  });
});

describe('a group bundle leaves out its listed dynamic imports', () => {
  const sources = {
    'entry.ts': "import('./listed').then(() => console.log('ran'), (error: Error) => { console.log(error.message); process.exitCode = 1; });",
    'listed.ts': "console.log('the left-out module ran');",
  };

  it('a listed one becomes a module that throws if it runs', async () => {
    const dir = makeTempDir('left-out');
    const text = await bundleOf(dir, sources, { plugins: [leaveOutDynamicImports('demo', ['entry.ts:./listed'], dir)] });
    expect(text).not.toContain('the left-out module ran');
    const out = runBundle(dir, text);
    expect([out.status, out.stdout]).toEqual([1, "forge-demo.cjs does not hold entry.ts:./listed: the launcher runs dist/forge.cjs for demo's options that need it\n"]);
  });

  it('a dynamic import the group does not list is bundled as usual', async () => {
    const dir = makeTempDir('left-in');
    const out = runBundle(dir, await bundleOf(dir, sources, { plugins: [leaveOutDynamicImports('demo', [], dir)] }));
    expect([out.status, out.stdout]).toEqual([0, 'the left-out module ran\nran\n']);
  });

  it('the build fails on a listed one that no module makes', async () => {
    const dir = makeTempDir('left-out-refused');
    await expect(bundleOf(dir, sources, { plugins: [leaveOutDynamicImports('demo', ['entry.ts:./listed', 'entry.ts:./gone'], dir)] })).rejects.toThrow(/leftOut lists entry\.ts:\.\/gone, which no module of the group imports/);
  });
});
