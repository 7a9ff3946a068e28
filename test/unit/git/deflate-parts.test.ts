/**
 * Large objects are hashed and deflated as header + content, never framed into one more copy
 * (issue "Safe among others", 7: a 100 MB write_file held the file several times over). The
 * parts' stream is one valid zlib stream (zlib itself checks its Adler-32 while inflating), and
 * a large blob written this way is one git reads, fscks and hashes to the same oid.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Repository } from '../../../src/git';
import { deflateParts } from '../../../src/git/node/deflate-parts';
import { nodePlatform } from '../../../src/git/node/platform';
import { expectFsckClean } from '../../helpers/fsck';
import { makeRepo } from '../../helpers/repos';

describe('deflateParts', () => {
  it('is one zlib stream of the parts in order, whatever their sizes and contents', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 70_000 }), { maxLength: 4 }), (parts) => {
        const stream = Buffer.concat(deflateParts(parts));
        expect(Buffer.compare(inflateSync(stream), Buffer.concat(parts))).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it('without the streamed deflate, a large blob written in parts is the object git writes: same oid, readable, fsck clean', async () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n' } });
    const content = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < content.length; i++) content[i] = (i * 2654435761) >>> 27;
    const repo = await Repository.open({ fs: nodeFs, dir: r.dir, platform: nodePlatform });
    const sync = nodePlatform.sync!;
    const original = sync.deflateParts!;
    // A Node whose zlib internals differ: the platform has no deflateInto (deflate-stream.ts).
    const into = sync.deflateInto;
    delete sync.deflateInto;
    let inParts = 0;
    sync.deflateParts = (parts) => (inParts++, original(parts));
    let oid: string;
    try {
      oid = await repo.writeBlob(content);
    } finally {
      sync.deflateParts = original;
      sync.deflateInto = into;
    }
    expect(inParts).toBe(1);
    const expected = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
    expect(oid).toBe(expected);
    const viaGit = execFileSync('git', ['cat-file', 'blob', oid], { cwd: r.dir, maxBuffer: 64 << 20 });
    expect(Buffer.compare(viaGit, content)).toBe(0);
    // Reachable, so fsck checks the object itself (not only that it is dangling).
    execFileSync('git', ['update-ref', 'refs/tags/big', oid], { cwd: r.dir });
    expectFsckClean(r.gitdir);
  });
});
