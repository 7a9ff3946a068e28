/**
 * Real repositories on disk for tests, and the git-CLI readers used to check what the engine
 * wrote into them.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buildRepo } from '../../fixtures-repos/build.mjs';
import { getFixture, type FixtureName } from '../../fixtures-repos/index.mjs';
import type { FixtureDefinition } from '../../fixtures-repos/types';
import { git } from './git-cli';
import { filesToDefinition, type MakeRepoOptions, type RepoHandle } from './repo-files';
import { makeTempDir } from './temp';

export type { FileInput, FileMode, MakeRepoOptions, RepoHandle } from './repo-files';

/**
 * A repository with one commit holding `files`, in a fresh temp dir. Not bare: the files are
 * checked out and the index matches HEAD. Bare: `dir` and `gitdir` are the same directory.
 */
export function makeRepo(opts: MakeRepoOptions): RepoHandle {
  return buildInTemp(filesToDefinition(opts), opts.bare ?? false, 'repo');
}

/** The named fixture from fixtures-repos/, built into a fresh temp dir. */
export function copyFixture(name: FixtureName, opts: { bare?: boolean } = {}): RepoHandle {
  return buildInTemp(getFixture(name), opts.bare ?? false, name);
}

function buildInTemp(definition: FixtureDefinition, bare: boolean, label: string): RepoHandle {
  const target = join(makeTempDir(label), bare ? 'repo.git' : 'repo');
  return buildRepo(definition, target, {
    bare,
    runGit: (cwd, args, input) => git(cwd, args, { input }).stdout,
  });
}

/**
 * One line per entry of the working tree (not .git): kind, permission bits, size and SHA-256
 * of the bytes (or of the link target), then the SHA-256 of .git/index. Equal snapshots mean
 * the working directory and the index are byte-identical; unequal ones diff readably.
 */
export function snapshotWorkTree(dir: string): string {
  const lines: string[] = [];
  const walk = (rel: string) => {
    const names = readdirSync(join(dir, rel)).sort();
    for (const name of names) {
      if (rel === '' && name === '.git') continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      const abs = join(dir, path);
      const st = lstatSync(abs);
      const perm = (st.mode & 0o7777).toString(8).padStart(4, '0');
      if (st.isSymbolicLink()) {
        lines.push(`link ${sha256(Buffer.from(readlinkSync(abs)))} ${path} -> ${readlinkSync(abs)}`);
      } else if (st.isDirectory()) {
        lines.push(`dir  ${perm} ${path}/`);
        walk(path);
      } else if (st.isFile()) {
        lines.push(`file ${perm} ${st.size} ${sha256(readFileSync(abs))} ${path}`);
      } else {
        lines.push(`other ${perm} ${path}`);
      }
    }
  };
  walk('');
  const index = join(dir, '.git', 'index');
  lines.push(`index ${existsSync(index) ? sha256(readFileSync(index)) : 'absent'}`);
  return `${lines.join('\n')}\n`;
}

export interface LsTreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  /** Full path from the root, unquoted UTF-8. */
  path: string;
}

/** Every file of `rev`'s tree (recursive, full paths), from `git ls-tree -r -z --full-tree`. */
export function gitLsTree(gitdir: string, rev: string): LsTreeEntry[] {
  const out = git(gitdir, [`--git-dir=${gitdir}`, 'ls-tree', '-r', '-z', '--full-tree', rev]).stdout;
  return out
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const tab = record.indexOf('\t');
      const [mode, type, oid] = record.slice(0, tab).split(' ');
      return { mode, type: type as LsTreeEntry['type'], oid, path: record.slice(tab + 1) };
    });
}

/** The exact bytes of `path` at `rev` (`git cat-file blob <rev>:<path>`). */
export function gitShowBytes(gitdir: string, rev: string, path: string): Buffer {
  return git(gitdir, [`--git-dir=${gitdir}`, 'cat-file', 'blob', `${rev}:${path}`]).stdoutBuffer;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
