#!/usr/bin/env node
/**
 * Builds a fixture definition into a real repository on disk with `git init` + `git fast-import`
 * (+ `git reset --hard` to check it out when not bare).
 *
 * Library:  buildRepo(definition, targetDir, { bare, runGit })  (used by test/helpers/repos.ts,
 *           which passes its own hermetic git runner)
 * CLI:      node fixtures-repos/build.mjs <fixture-name> <target-dir> [--bare]
 *           node fixtures-repos/build.mjs --list
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toFastImportStream } from './fast-import.mjs';
import { fixtures, getFixture } from './index.mjs';

/**
 * @param {import('./types').FixtureDefinition} definition
 * @param {string} targetDir created if missing; must be empty
 * @param {{ bare?: boolean, runGit?: (cwd: string, args: string[], input?: Buffer) => string }} [options]
 * @returns {{ dir: string, gitdir: string, head: string }}
 */
export function buildRepo(definition, targetDir, options = {}) {
  const { bare = false, runGit = runGitMinimal } = options;
  const branch = definition.branch ?? 'main';
  const stream = toFastImportStream(definition); // validates before touching the disk
  const dir = resolve(targetDir);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`buildRepo: ${dir} is not empty`);
  mkdirSync(dir, { recursive: true });

  runGit(dir, ['init', '-q', ...(bare ? ['--bare'] : []), '-b', branch, dir]);
  const gitdir = bare ? dir : join(dir, '.git');
  runGit(dir, [`--git-dir=${gitdir}`, 'fast-import', '--quiet', '--done'], stream);
  if (!bare) runGit(dir, ['reset', '-q', '--hard', `refs/heads/${branch}`]);
  const head = runGit(dir, [`--git-dir=${gitdir}`, 'rev-parse', '--verify', `refs/heads/${branch}^{commit}`]).trim();
  return { dir, gitdir, head };
}

/** Used by the CLI: no user or system config, so the result does not depend on the machine. */
function runGitMinimal(cwd, args, input) {
  const env = { PATH: process.env.PATH ?? '', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const result = spawnSync('git', args, { cwd, env, input, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return result.stdout.toString('utf8');
}

function main(argv) {
  if (argv[0] === '--list') {
    for (const def of Object.values(fixtures)) console.log(`${def.name}\t${def.description}`);
    return;
  }
  const positional = argv.filter((a) => !a.startsWith('--'));
  if (positional.length !== 2) {
    console.error('usage: node fixtures-repos/build.mjs <fixture-name> <target-dir> [--bare] | --list');
    process.exit(2);
  }
  const [name, target] = positional;
  const built = buildRepo(getFixture(name), target, { bare: argv.includes('--bare') });
  console.log(JSON.stringify({ fixture: name, ...built }, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2));
}
