/**
 * Issue 23, section 3: what a hostile smart-HTTP server sends never lands unchecked. A proxy in
 * front of a real `git http-backend` rewrites its answers: ref names with ESC/BEL and names git
 * would refuse among valid ones (skipped with an escaped warning; the valid sessions fetched,
 * nothing half-done), 100,000 advertised session branches (refused by the cap before any pack is
 * asked for), a damaged pack and a side-band error (the remote's fault: exit 6, a REMOTE_ code,
 * never exit 1 / kind internal). Every repository written is checked with git fsck --strict.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writePack } from '../../../src/remote';
import { nodePlatform } from '../../../src/git/node/platform';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { forward, startHostileServer, uploadPackAnswer, withExtraRefs, type HostileServer } from '../../helpers/hostile-http';
import { forgeAsync, rev, startWorld, type World } from './remote-harness';

let world: World;
let proxy: HostileServer | undefined;

beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await world.server.close();
});

type Rewrite = { extraRefs?: (oid: string) => Array<{ oid: string; ref: string }>; uploadPack?: () => Promise<Buffer> | Buffer };

/** A clone whose origin is a proxy to the world's server that rewrites its answers. */
async function hostileClone(name: string, rewrite: Rewrite): Promise<string> {
  const dir = world.clone(name, { user: null });
  // A session branch on the server, made with plain git after the clone (a local clone shares
  // every object): fetching it needs a pack. Fetch does not read a session's content.
  const oid = git(world.serverRepo, ['commit-tree', 'main^{tree}', '-p', 'main', '-m', 'session s1']).stdout.trim();
  git(world.serverRepo, ['update-ref', 'refs/heads/forge/session/s1', oid]);
  proxy = await startHostileServer(async (req, body, res) => {
    if (req.method === 'POST' && rewrite.uploadPack && req.url?.endsWith('/git-upload-pack')) {
      res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
      res.end(await rewrite.uploadPack());
      return;
    }
    const answer = await forward(world.server.origin, req, body);
    const isAdvertisement = req.url?.includes('/info/refs?service=git-upload-pack');
    res.writeHead(answer.status, answer.headers);
    res.end(isAdvertisement && rewrite.extraRefs ? withExtraRefs(answer.body, rewrite.extraRefs(oid)) : answer.body);
  });
  git(dir, ['remote', 'set-url', 'origin', `${proxy.origin}/server.git`]);
  return dir;
}

function trackingRefs(dir: string): string[] {
  return git(dir, ['for-each-ref', '--format=%(refname)', 'refs/remotes/']).stdout.split('\n').filter((l) => l !== '' && !l.endsWith('/HEAD') && !l.endsWith('/main'));
}

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

describe('issue 23 §3: a hostile server’s ref names, refs, packs and errors', { timeout: 180_000 }, () => {
  it('ESC/BEL and invalid advertised names are skipped with an escaped warning; the valid sessions are fetched, nothing else', async () => {
    const dir = await hostileClone('b', {
      extraRefs: (oid) => [
        { oid, ref: 'refs/heads/forge/session/evil\x1b]0;owned\x07' },
        { oid, ref: 'refs/heads/forge/session/a..b' },
        { oid, ref: 'refs/heads/forge/session/x.lock' },
        { oid, ref: 'refs/heads/forge/session/nested/deep' },
        { oid, ref: 'refs/heads/forge/session/\x1b[2J' },
        { oid, ref: 'refs/heads/forge/session/s2' },
        { oid, ref: 'refs/heads/not-a-session' },
        { oid, ref: 'refs/tags/v1' },
      ],
    });
    const fetched = await forgeAsync(['fetch', '--repo', dir]);
    expect(fetched.status, fetched.stderr).toBe(0);
    expect(fetched.stdout + fetched.stderr).not.toMatch(RAW_CONTROL);
    expect(fetched.stderr).toContain('forge: warning: skipped the remote\'s ref "refs/heads/forge/session/evil\\x1b]0;owned\\x07"');
    expect(fetched.stderr).toContain('refs/heads/forge/session/a..b');
    expect(fetched.stderr).toContain('refs/heads/forge/session/x.lock');
    expect(fetched.stderr).toContain('refs/heads/forge/session/nested/deep');
    expect(fetched.stderr).toContain('refs/heads/forge/session/\\x1b[2J');
    // Only session branches with valid ids, and all of them.
    expect(trackingRefs(dir).sort()).toEqual(['refs/remotes/origin/forge/session/s1', 'refs/remotes/origin/forge/session/s2']);
    expectFsckClean(join(dir, '.git'));

    const json = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout).warnings).toHaveLength(5);
  });

  it('100,000 advertised session branches are refused by the cap before any pack is asked for; named sessions still fetch', async () => {
    const dir = await hostileClone('b', { extraRefs: (oid) => Array.from({ length: 100_000 }, (_, i) => ({ oid, ref: `refs/heads/forge/session/many-${i}` })) });
    const refused = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(refused.status).toBe(6);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'REMOTE_TOO_MANY_REFS', kind: 'remote', data: { new: 100_001, max: 1000 } });
    expect(trackingRefs(dir)).toEqual([]);
    expect(proxy!.requests.some((r) => r.method === 'POST')).toBe(false);

    const named = await forgeAsync(['fetch', '--repo', dir, 's1']);
    expect(named.status, named.stderr).toBe(0);
    expect(trackingRefs(dir)).toEqual(['refs/remotes/origin/forge/session/s1']);

    git(dir, ['config', 'forge.fetchMaxNewRefs', '2']);
    git(world.serverRepo, ['update-ref', 'refs/heads/forge/session/s3', 'refs/heads/main']);
    const overCap = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(overCap.status).toBe(6);
    expect(JSON.parse(overCap.stdout).error.data).toMatchObject({ new: 100_001, max: 2 });
    expectFsckClean(join(dir, '.git'));
  });

  it('a damaged pack is the remote’s fault: exit 6 with a REMOTE_ code, no ref moved, nothing broken', async () => {
    const blob = await writePack([{ type: 'blob', content: new TextEncoder().encode('not the commit\n') }], 1, nodePlatform);
    blob[blob.length - 1] ^= 0xff;
    const dir = await hostileClone('b', { uploadPack: () => uploadPackAnswer({ pack: blob }) });
    const result = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(result.status).toBe(6);
    const error = JSON.parse(result.stdout).error;
    expect(error.kind).toBe('remote');
    expect(error.code).toMatch(/^REMOTE_/);
    expect(trackingRefs(dir)).toEqual([]);
    expectFsckClean(join(dir, '.git'));
  });

  it('a delta that copies past its base is the remote’s fault too (REMOTE_ code, exit 6), not an internal error', async () => {
    const dir = await hostileClone('b', {
      uploadPack: async () => {
        const readmeBlob = git(world.serverRepo, ['rev-parse', 'main:README.md']).stdout.trim();
        // Base of 6 bytes ("# app\n"), result of 10, then "copy 100 bytes from offset 0".
        const delta = new Uint8Array([0x06, 0x0a, 0x90, 0x64]);
        return uploadPackAnswer({ pack: await writePack([{ type: 'blob', content: new Uint8Array(0), delta: { base: readmeBlob, data: delta } }], 1, nodePlatform) });
      },
    });
    const result = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(result.status).toBe(6);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'remote' });
    expect(JSON.parse(result.stdout).error.code).toMatch(/^REMOTE_/);
    expect(trackingRefs(dir)).toEqual([]);
    expectFsckClean(join(dir, '.git'));
  });

  it('a server error with control characters reaches the terminal escaped, and is not exit 1', async () => {
    const dir = await hostileClone('b', { uploadPack: () => uploadPackAnswer({ error: 'upload failed \x1b]0;pwned\x07\x1b[2J now' }) });
    const result = await forgeAsync(['fetch', '--repo', dir]);
    expect(result.status).not.toBe(0);
    expect(result.status).not.toBe(1);
    expect(result.stderr).toContain('upload failed \\x1b]0;pwned\\x07\\x1b[2J now');
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(trackingRefs(dir)).toEqual([]);
    expectFsckClean(join(dir, '.git'));
  });
});
