/** materialize() writes exactly what `git checkout` of the same commit writes: bytes, executable bits, symlinks. */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { CommitVfs, materialize } from '../../src/vfs';
import { codeOf } from '../helpers/engine-assert';
import { bytes } from '../helpers/engine-repos';
import { git } from '../helpers/git-cli';
import { copyFixture } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const fs: GitFs = nodeFs;

/** One line per entry: kind, executable bit, and the bytes or link target (permissions beyond x depend on the umask). */
function describeTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of nodeFs.readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = nodeFs.lstatSync(join(dir, path));
      if (st.isSymbolicLink()) out.push(`link ${path} -> ${nodeFs.readlinkSync(join(dir, path))}`);
      else if (st.isDirectory()) {
        out.push(`dir  ${path}`);
        walk(path);
      } else out.push(`file ${st.mode & 0o111 ? 'x' : '-'} ${path} ${nodeFs.readFileSync(join(dir, path)).toString('base64')}`);
    }
  };
  walk('');
  return out;
}

function gitCheckout(gitdir: string, commit: string): string {
  const target = join(makeTempDir('checkout'), 'out');
  nodeFs.mkdirSync(target);
  git(target, [`--git-dir=${gitdir}`, `--work-tree=${target}`, 'checkout', commit, '--', '.'], { env: { GIT_INDEX_FILE: join(target, '..', 'index') } });
  return target;
}

describe('materialize', () => {
  it('writes a pending view (base + edits) exactly as git checkout writes the commit of those edits', async () => {
    const r = copyFixture('edge-cases');
    const repo = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    const s = await new SessionStore(repo).create({ id: 'mat' });
    await s.vfs.writeFile('new/tool.sh', bytes('#!/bin/sh\r\necho hi\r\n'), { mode: '100755' });
    await s.vfs.writeFile('new/link-up', bytes('../README.md'), { mode: '120000' });
    await s.vfs.writeFile('assets/nul-bytes.bin', new Uint8Array([0, 0, 0xff, 0x0d]));
    await s.vfs.deleteFile('docs/日本語.md');
    await s.vfs.writeFile('bin/run.sh', bytes('#!/bin/sh\nexit 1\n'), { mode: '100644' });

    const pendingOut = join(makeTempDir('mat'), 'pending');
    const result = await materialize(s.vfs, fs, pendingOut);
    const turn = await s.commitTurn();
    // The session file is the one thing that changes with the commit (its turn counter).
    const withoutSessionFile = (lines: string[]) => lines.filter((l) => !l.includes(' .forge'));
    const expected = withoutSessionFile(describeTree(gitCheckout(r.gitdir, turn.commit)));
    expect(withoutSessionFile(describeTree(pendingOut))).toEqual(expected);
    expect(result.files).toBe(expected.filter((l) => !l.startsWith('dir')).length + 1);
    expect(expected).toContain('link new/link-up -> ../README.md');
    expect(expected.some((l) => l.startsWith('file x new/tool.sh'))).toBe(true);

    const committedOut = join(makeTempDir('mat'), 'committed');
    await materialize(new CommitVfs(repo, turn.commit, turn.tree), fs, committedOut);
    expect(describeTree(committedOut)).toEqual(describeTree(gitCheckout(r.gitdir, turn.commit)));
  });

  it('refuses a target directory that is not empty (INVALID_ARGUMENT) and writes nothing into it', async () => {
    const r = copyFixture('example-app');
    const view = await CommitVfs.open(await Repository.open({ fs, dir: r.dir, platform: nodePlatform }), 'HEAD');
    const target = makeTempDir('mat');
    nodeFs.writeFileSync(join(target, 'existing'), 'x');
    expect(await codeOf(materialize(view, fs, target))).toBe('INVALID_ARGUMENT');
    expect(nodeFs.readdirSync(target)).toEqual(['existing']);
  });
});
