/**
 * What installing and running the package leaves behind: `npm install` has no install script to
 * warn about (every dependency that has one is approved in package.json's `allowScripts`, npm 11's
 * "not yet covered by allowScripts" advisory), and the launcher's V8 code cache goes to the
 * user's cache directory, never beside the bundle, into the repository root or the current
 * directory (an older launcher committed twelve dist.NNNN.tmp files to the root).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../../helpers/forge-cli';
import { hermeticGitEnv } from '../../helpers/git-cli';
import { makeTempDir } from '../../helpers/temp';

describe('installing and running the package', () => {
  it("approves in allowScripts every locked dependency that has an install script (npm install prints no allow-scripts warning)", () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };
    const approved = new Set(Object.entries(pkg.allowScripts ?? {}).filter(([, allowed]) => allowed).map(([name]) => name));
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version }));
    expect(withScripts.map((p) => p.name)).toContain('esbuild');
    expect(withScripts.filter((p) => !approved.has(p.name) && !approved.has(`${p.name}@${p.version}`))).toEqual([]);
  });

  it('the launcher keeps its V8 code cache in $XDG_CACHE_HOME/forge, nothing beside the bundle, in the root or the working directory', () => {
    const cacheHome = makeTempDir('launcher-cache');
    const cwd = makeTempDir('launcher-cwd');
    // Code caches and temporary files only: other test files may create their own files meanwhile.
    const caches = (dir: string) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && /\.(cache|tmp)$/.test(e.name)).map((e) => e.name);
    const listing = () => ({ root: caches('.'), dist: caches(resolve(FORGE_BIN, '..')), cwd: readdirSync(cwd) });
    expect(listing()).toEqual({ root: [], dist: [], cwd: [] });
    // Twice: the first run writes the cache (at exit), the second reads it.
    for (let i = 0; i < 2; i++) {
      const run = spawnSync(process.execPath, [FORGE_BIN, '--version'], { cwd, encoding: 'utf8', env: { ...hermeticGitEnv(), XDG_CACHE_HOME: cacheHome } });
      expect([run.status, run.stderr]).toEqual([0, '']);
    }
    expect(readdirSync(join(cacheHome, 'forge'))).toEqual([expect.stringMatching(/^forge\.[0-9a-f]{16}\.cache$/)]);
    expect(listing()).toEqual({ root: [], dist: [], cwd: [] });
  });
});
