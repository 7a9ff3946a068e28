import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { ZERO_OID, type Repository, type Signature } from '../../../src/git';
import { MEMFS_BACKENDS, type EngineRepo } from '../../helpers/engine-repos';

const who: Signature = { name: 'Ref Tester', email: 'refs@example.invalid', timestamp: 1_700_000_000, timezoneOffset: 90 };
const OTHER = '1'.repeat(40);

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isForgeError(error, code)) throw new Error(`expected ${code}, got ${error === undefined ? 'success' : String(error)}`);
}

async function setup(backend: (typeof MEMFS_BACKENDS)[number], bare = false): Promise<{ r: EngineRepo; repo: Repository; read: (p: string) => Promise<string | null> }> {
  const r = await backend.make({ files: { 'a.txt': 'a\n' }, bare });
  const repo = await r.open();
  const read = (p: string) => r.fs.promises.readFile(`${r.gitdir}/${p}`, 'utf8').catch(() => null);
  return { r, repo, read };
}

describe.each(MEMFS_BACKENDS)('RefStore on $name', (backend) => {
  it('creates a ref only when it must not exist (ZERO_OID), then moves it by compare-and-swap', async () => {
    const { r, repo, read } = await setup(backend);
    const ref = 'refs/heads/forge/session/s';
    await repo.refs.update({ ref, newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'create' });
    expect(await read(ref)).toBe(`${r.head}\n`);
    await expectCode(repo.refs.update({ ref, newOid: OTHER, expectedOid: ZERO_OID, committer: who, reflogMessage: 'again' }), 'REF_CAS_FAILED');
    await repo.refs.update({ ref, newOid: OTHER, expectedOid: r.head, committer: who, reflogMessage: 'move' });
    expect(await repo.refs.resolve(ref)).toBe(OTHER);
  });

  it('a lost compare-and-swap leaves the ref as it was and no .lock behind', async () => {
    const { r, repo, read } = await setup(backend);
    await expectCode(repo.refs.update({ ref: 'refs/heads/main', newOid: OTHER, expectedOid: '2'.repeat(40), committer: who, reflogMessage: 'x' }), 'REF_CAS_FAILED');
    expect(await read('refs/heads/main')).toBe(`${r.head}\n`);
    expect(await read('refs/heads/main.lock')).toBeNull();
  });

  it('an existing .lock is REF_LOCKED: neither the ref nor the lock file is touched', async () => {
    const { r, repo, read } = await setup(backend);
    await r.fs.promises.writeFile(`${r.gitdir}/refs/heads/main.lock`, 'held by someone else\n');
    await expectCode(repo.refs.update({ ref: 'refs/heads/main', newOid: OTHER, expectedOid: r.head, committer: who, reflogMessage: 'x' }), 'REF_LOCKED');
    expect(await read('refs/heads/main')).toBe(`${r.head}\n`);
    expect(await read('refs/heads/main.lock')).toBe('held by someone else\n');
  });

  it('appends one git-format reflog line per update in a non-bare repository', async () => {
    const { r, repo, read } = await setup(backend);
    const ref = 'refs/heads/forge/session/logged';
    await repo.refs.update({ ref, newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'forge: start\nsecond line dropped' });
    await repo.refs.update({ ref, newOid: OTHER, expectedOid: r.head, committer: who, reflogMessage: 'forge: turn 1' });
    expect(await read(`logs/${ref}`)).toBe(
      `${ZERO_OID} ${r.head} Ref Tester <refs@example.invalid> 1700000000 +0130\tforge: start\n` +
        `${r.head} ${OTHER} Ref Tester <refs@example.invalid> 1700000000 +0130\tforge: turn 1\n`,
    );
  });

  it('creates no reflog in a bare repository, but appends to one that exists (as git does)', async () => {
    const { r, repo, read } = await setup(backend, true);
    await repo.refs.update({ ref: 'refs/heads/one', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' });
    expect(await read('logs/refs/heads/one')).toBeNull();
    await r.fs.promises.mkdir(`${r.gitdir}/logs/refs/heads`, { recursive: true });
    await r.fs.promises.writeFile(`${r.gitdir}/logs/refs/heads/two`, '');
    await repo.refs.update({ ref: 'refs/heads/two', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'y' });
    expect(await read('logs/refs/heads/two')).toMatch(/^0{40} [0-9a-f]{40} Ref Tester .*\ty\n$/);
  });

  it('reads packed refs, updates them by CAS into a loose ref, and lists loose and packed refs sorted, skipping locks', async () => {
    const { r, repo } = await setup(backend);
    await r.fs.promises.writeFile(
      `${r.gitdir}/packed-refs`,
      `# pack-refs with: peeled fully-peeled sorted \n${OTHER} refs/heads/forge/session/packed\n${'3'.repeat(40)} refs/tags/t\n^${r.head}\n`,
    );
    expect(await repo.refs.resolve('refs/heads/forge/session/packed')).toBe(OTHER);
    await expectCode(repo.refs.update({ ref: 'refs/heads/forge/session/packed', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' }), 'REF_CAS_FAILED');
    await repo.refs.update({ ref: 'refs/heads/forge/session/loose', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' });
    await r.fs.promises.writeFile(`${r.gitdir}/refs/heads/forge/session/stale.lock`, `${r.head}\n`);
    expect(await repo.refs.list('refs/heads/forge/session/')).toEqual([
      { ref: 'refs/heads/forge/session/loose', oid: r.head },
      { ref: 'refs/heads/forge/session/packed', oid: OTHER },
    ]);
    await repo.refs.update({ ref: 'refs/heads/forge/session/packed', newOid: r.head, expectedOid: OTHER, committer: who, reflogMessage: 'x' });
    expect(await repo.refs.resolve('refs/heads/forge/session/packed')).toBe(r.head);
  });

  it('follows symbolic refs and reports a loop', async () => {
    const { r, repo } = await setup(backend);
    expect(await repo.refs.resolve('HEAD')).toBe(r.head);
    await repo.refs.writeSymbolic('refs/heads/l1', 'refs/heads/l2');
    await repo.refs.writeSymbolic('refs/heads/l2', 'refs/heads/l1');
    await expectCode(repo.refs.resolve('refs/heads/l1'), 'REF_NOT_FOUND');
    expect(await repo.refs.resolve('refs/heads/nothing')).toBeNull();
  });

  it.each(['refs/heads/a..b', 'refs/heads/x.lock', 'heads/main', 'refs/heads/a b', 'refs/heads/'])('refuses to write the ref %j (REF_INVALID_NAME)', async (ref) => {
    const { r, repo } = await setup(backend);
    await expectCode(repo.refs.update({ ref, newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' }), 'REF_INVALID_NAME');
  });

  it('refuses a ref below an existing ref (refs/heads/forge is a branch) with REF_INVALID_NAME', async () => {
    const { r, repo } = await setup(backend);
    await repo.refs.update({ ref: 'refs/heads/forge', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' });
    await expectCode(repo.refs.update({ ref: 'refs/heads/forge/session/s', newOid: r.head, expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' }), 'REF_INVALID_NAME');
  });

  it('refuses abbreviated oids (INVALID_ARGUMENT)', async () => {
    const { r, repo } = await setup(backend);
    await expectCode(repo.refs.update({ ref: 'refs/heads/x', newOid: r.head.slice(0, 12), expectedOid: ZERO_OID, committer: who, reflogMessage: 'x' }), 'INVALID_ARGUMENT');
  });
});
