/**
 * Packs both ways against git: what git's pack-objects writes (with deltas by offset and by base
 * oid) is unpacked into our object store and read back equal with git cat-file; what our pack
 * writer produces is accepted by git index-pack. A truncated pack writes nothing.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { unpackInto, writePack } from '../../../src/remote';
import { nodeStreamInflater } from '../../../src/remote/node/stream-inflater';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { makeTempDir } from '../../helpers/temp';

/** A repository whose history has near-identical versions of a file: good delta material. */
function historyRepo(): string {
  const dir = join(makeTempDir('packsrc'), 'src');
  git(makeTempDir('x'), ['init', '-q', dir]);
  let text = Array.from({ length: 400 }, (_, i) => `line ${i} of a file that changes a little each commit\n`).join('');
  for (let c = 0; c < 6; c++) {
    text = text.replace(`line ${c * 7} `, `LINE ${c * 7} changed `);
    fs.writeFileSync(join(dir, 'big.txt'), text);
    fs.writeFileSync(join(dir, `small-${c}.txt`), `small ${c}\n`);
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', `commit ${c}`]);
  }
  return dir;
}

async function emptyRepo(): Promise<{ dir: string; repo: Repository }> {
  const dir = join(makeTempDir('packdst'), 'dst.git');
  git(makeTempDir('y'), ['init', '-q', '--bare', dir]);
  return { dir, repo: await Repository.open({ fs: fs as unknown as GitFs, dir, platform: nodePlatform }) };
}

describe('unpacking packs written by git', () => {
  for (const [name, flags] of [
    ['deltas by offset', ['--delta-base-offset']],
    ['deltas by base oid', []],
  ] as const) {
    it(`stores every object of a pack with ${name}, equal to git's`, { timeout: 300_000 }, async () => {
      const src = historyRepo();
      const objects = git(src, ['rev-list', '--objects', '--all']).stdout.trim().split('\n').map((l) => l.split(' ')[0]!);
      const pack = git(src, ['pack-objects', '--stdout', '--window=10', '--depth=10', ...flags], { input: objects.join('\n') + '\n' }).stdoutBuffer;
      // The pack really holds deltas of the kind under test.
      const verify = join(makeTempDir('verify'), 'p.pack');
      fs.writeFileSync(verify, pack);
      git(src, ['index-pack', verify]);
      const listing = git(src, ['verify-pack', '-v', verify.replace(/\.pack$/, '.idx')]).stdout;
      expect(listing).toMatch(/ blob +\d+ \d+ \d+ \d+ [0-9a-f]{40}/);

      const { dir, repo } = await emptyRepo();
      const result = await unpackInto(repo, new Uint8Array(pack), nodeStreamInflater, 'test');
      expect(new Set(result.oids)).toEqual(new Set(objects));
      // git's objects, all in one `cat-file --batch`: "<oid> <type> <size>\n<content>\n" each.
      const batch = git(src, ['cat-file', '--batch'], { input: objects.join('\n') + '\n' }).stdoutBuffer;
      let at = 0;
      for (const oid of objects) {
        const eol = batch.indexOf(10, at);
        const [gotOid, type, size] = batch.subarray(at, eol).toString('latin1').split(' ');
        const content = batch.subarray(eol + 1, eol + 1 + Number(size));
        at = eol + 1 + Number(size) + 1;
        const ours = await repo.objects.read(oid);
        expect([gotOid, ours.type]).toEqual([oid, type]);
        expect(Buffer.from(ours.content).equals(content)).toBe(true);
      }
      git(dir, ['update-ref', 'refs/heads/main', git(src, ['rev-parse', 'HEAD']).stdout.trim()]);
      expectFsckClean(dir);
      repo.close();
    });
  }

  it('writes nothing from a pack cut short', { timeout: 300_000 }, async () => {
    const src = historyRepo();
    const pack = git(src, ['pack-objects', '--stdout', '--revs'], { input: 'HEAD\n' }).stdoutBuffer;
    const { dir, repo } = await emptyRepo();
    await expect(unpackInto(repo, new Uint8Array(pack.subarray(0, pack.length - 100)), nodeStreamInflater, 'test')).rejects.toMatchObject({ code: 'REMOTE_PACK_INVALID' });
    expect(git(dir, ['count-objects']).stdout).toBe('0 objects, 0 kilobytes\n');
    repo.close();
  });
});

describe('packs we write', () => {
  it('are accepted by git index-pack, object for object', { timeout: 300_000 }, async () => {
    const src = historyRepo();
    const repo = await Repository.open({ fs: fs as unknown as GitFs, dir: src, platform: nodePlatform });
    const objects = git(src, ['rev-list', '--objects', '--all']).stdout.trim().split('\n').map((l) => l.split(' ')[0]!);
    async function* all() {
      for (const oid of objects) yield await repo.objects.read(oid);
    }
    const pack = await writePack(all(), objects.length, repo.platform);
    const file = join(makeTempDir('ours'), 'ours.pack');
    fs.writeFileSync(file, pack);
    git(src, ['index-pack', '--strict', file]);
    const listed = git(src, ['show-index'], { input: fs.readFileSync(file.replace(/\.pack$/, '.idx')) }).stdout.trim().split('\n').map((l) => l.split(' ')[1]);
    expect(new Set(listed)).toEqual(new Set(objects));
    repo.close();
  });
});
