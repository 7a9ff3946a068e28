/**
 * Issue 27, done-when 2: real programs in a mount. The example app's own test suite (`node
 * --test`, which spawns a Node process per test file) runs in a mounted session and passes; with
 * a pending edit that breaks the code it fails, and with the fix written through the mount (by
 * `sed -i`, which writes a temporary file and renames it over the original) it passes again, the
 * view back to its base, the user's working tree untouched.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { mountSession } from '../../src/mount/node/mount-session';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { describeMount, openSession, run } from '../helpers/mount';
import { copyFixture } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

/** A command run in `dir` (the child changes into it itself: see sh() in helpers/mount.ts); never throws. */
async function inDir(dir: string, script: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', `cd -- "$1"\n${script}`, 'sh', dir], { cwd: '/', maxBuffer: 64 << 20 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describeMount('real programs in a mount', () => {
  it('node --test of the example app passes in the mount, fails on a broken pending edit, and passes after a fix made by sed -i', async () => {
    const repo = copyFixture('example-app');
    const { session } = await openSession(repo, 'app');
    const dir = join(makeTempDir('app-mnt'), 'view');
    await fsp.mkdir(dir);
    const mount = await mountSession(session, dir);
    onTestFinished(async () => {
      await mount.unmount();
      await session.close();
    });

    const clean = await inDir(dir, 'node --test 2>&1');
    expect(clean.code, clean.output).toBe(0);
    expect(clean.output).toMatch(/# pass [1-9]/);
    expect(clean.output).toContain('# fail 0');

    // A pending edit (a tool's write) that breaks sum(): the tests in the mount see it.
    const math = new TextDecoder().decode(await session.vfs.readFile('src/math.js'));
    await session.vfs.writeFile('src/math.js', new TextEncoder().encode(math.replace('return values.reduce((total, value) => total + value, 0);', 'return 0;')));
    expect(new TextDecoder().decode(await session.vfs.readFile('src/math.js'))).not.toBe(math);
    const broken = await inDir(dir, 'node --test 2>&1');
    expect(broken.code).not.toBe(0);
    expect(broken.output).toMatch(/# fail [1-9]/);

    // The fix, written through the mount by sed -i (a temporary file renamed over the original).
    const fixed = await inDir(dir, "sed -i 's/return 0;/return values.reduce((total, value) => total + value, 0);/' src/math.js && node --test 2>&1");
    expect(fixed.code, fixed.output).toBe(0);
    expect(fixed.output).toContain('# fail 0');
    expect(new TextDecoder().decode(await session.vfs.readFile('src/math.js'))).toBe(math);

    // Nothing the test runner left behind is pending: the view is the base again.
    expect(await session.vfs.diff()).toEqual([]);
    expectFsckClean(repo.gitdir);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
  });
});
