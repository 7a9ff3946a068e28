import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanupTempDirs, makeTempDir } from '../../helpers/temp';

describe('makeTempDir', () => {
  let fromBeforeAll = '';
  let fromTest = '';

  beforeAll(() => {
    fromBeforeAll = makeTempDir('before-all');
  });

  it('creates an empty directory named forge-test-<prefix>-* under os.tmpdir()', () => {
    fromTest = makeTempDir('my prefix/x');
    expect(statSync(fromTest).isDirectory()).toBe(true);
    expect(dirname(fromTest)).toBe(realpathSync(tmpdir()));
    expect(basename(fromTest)).toMatch(new RegExp(`^forge-test-my-prefix-x-p${process.pid}-`));
  });

  it('removes a directory made in a test when that test finishes', () => {
    expect(fromTest).not.toBe('');
    expect(existsSync(fromTest)).toBe(false);
  });

  it('keeps a directory made outside a test until cleanupTempDirs()', () => {
    expect(existsSync(fromBeforeAll)).toBe(true);
    cleanupTempDirs();
    expect(existsSync(fromBeforeAll)).toBe(false);
  });

  it('sweeps directories left by dead processes on first use in a process', async () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const orphan = join(realpathSync(tmpdir()), `forge-test-orphan-p${child.stdout}-AbC123`);
    mkdirSync(join(orphan, 'inner'), { recursive: true });
    vi.resetModules();
    const fresh = await import('../../helpers/temp');
    fresh.makeTempDir('sweeper');
    expect(existsSync(orphan)).toBe(false);
  });
});
