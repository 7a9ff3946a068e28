/**
 * Property: random sequences of write / delete / read / list / commit / reopen against a plain
 * in-memory model of a filesystem never diverge, and every commit holds exactly the model's
 * files (read back by the engine, and by the git CLI where `gitCheck` says so), and the
 * repository passes `git fsck --strict` at the end (every commit of a run is reachable from
 * the session branch, so one fsck judges all of them).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { CommitVfs } from '../../../src/vfs';
import { SessionStore, type Session } from '../../../src/session';
import type { Backend } from '../engine-repos';
import { gitFiles } from '../engine-assert';

type Mode = '100644' | '100755' | '120000';
interface ModelFile {
  content: number;
  mode: Mode;
}

const CONTENTS: Uint8Array[] = [new Uint8Array(), new TextEncoder().encode('x\n'), new TextEncoder().encode('crlf\r\nline\r\n'), new Uint8Array([0, 255, 13, 10, 0])];
const SEGMENTS = ['a', 'b', 'a.c', 'a0'];
const BASE: Record<string, ModelFile> = { 'a/b': { content: 1, mode: '100644' }, 'a.c': { content: 2, mode: '100755' }, 'b/a/a0': { content: 3, mode: '100644' } };

export type Op =
  | { op: 'write'; path: string; content: number; mode: Mode | undefined }
  | { op: 'delete'; path: string }
  | { op: 'read'; path: string }
  | { op: 'list'; path: string }
  | { op: 'commit' }
  | { op: 'reopen' };

const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('write' as const), path: pathArb, content: fc.integer({ min: 0, max: CONTENTS.length - 1 }), mode: fc.constantFrom<Mode | undefined>(undefined, undefined, '100644', '100755', '120000') }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), path: pathArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('read' as const), path: pathArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('list' as const), path: fc.oneof(fc.constant(''), pathArb) }) },
  { weight: 2, arbitrary: fc.constant({ op: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'reopen' as const }) },
);
export const opsArb = fc.array(opArb, { minLength: 1, maxLength: 20 });

class Model {
  files = new Map<string, ModelFile>(Object.entries(BASE));
  isFile(p: string) {
    return this.files.has(p);
  }
  isDir(p: string) {
    if (p === '') return true;
    for (const key of this.files.keys()) if (key.startsWith(`${p}/`)) return true;
    return false;
  }
  blockingAncestor(p: string): boolean {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) if (this.isFile(parts.slice(0, i).join('/'))) return true;
    return false;
  }
  children(dir: string): string[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    const out = new Map<string, string>();
    for (const [key, file] of this.files) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) out.set(rest, `${file.mode === '120000' ? 'symlink' : 'file'} ${file.mode} ${rest}`);
      else out.set(rest.slice(0, slash), `directory 040000 ${rest.slice(0, slash)}`);
    }
    return [...out.keys()].sort().map((k) => out.get(k)!);
  }
  /** path -> "mode base64" for comparison with a view or git. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const key of [...this.files.keys()].sort()) out[key] = `${this.files.get(key)!.mode} ${Buffer.from(CONTENTS[this.files.get(key)!.content]!).toString('base64')}`;
    return out;
  }
}

async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    const value = await promise;
    if (value instanceof Uint8Array) return `ok ${Buffer.from(value).toString('base64')}`;
    if (Array.isArray(value)) return `ok ${JSON.stringify(value)}`;
    return 'ok';
  } catch (error) {
    if (isForgeError(error)) return error.code;
    throw error;
  }
}

async function viewSnapshot(view: { walk(): Promise<Array<{ path: string; mode: string }>>; readFile(p: string): Promise<Uint8Array> }): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await view.walk()) {
    if (entry.path.startsWith('.forge/')) continue;
    out[entry.path] = `${entry.mode} ${Buffer.from(await view.readFile(entry.path)).toString('base64')}`;
  }
  return out;
}

/** Runs one sequence; throws (with the op index) on the first divergence. */
export async function runModel(backend: Backend, ops: Op[], opts: { gitCheck: 'every-commit' | 'last-commit' | 'none' }): Promise<void> {
  const r = await backend.make({ files: Object.fromEntries(Object.entries(BASE).map(([p, f]) => [p, { content: CONTENTS[f.content]!, mode: f.mode }])) });
  let session: Session = await new SessionStore(await r.open()).create({ id: 'model' });
  const model = new Model();
  let lastCommit: string | null = null;
  for (const [index, op] of ops.entries()) {
    const where = `op ${index} ${JSON.stringify(op)}`;
    switch (op.op) {
      case 'write': {
        const expected = model.blockingAncestor(op.path) ? 'PATH_NOT_DIRECTORY' : model.isDir(op.path) ? 'PATH_IS_DIRECTORY' : 'ok';
        const options = op.mode === undefined ? {} : { mode: op.mode };
        expect(await outcome(session.vfs.writeFile(op.path, CONTENTS[op.content]!, options)), where).toBe(expected);
        if (expected === 'ok') model.files.set(op.path, { content: op.content, mode: op.mode ?? model.files.get(op.path)?.mode ?? '100644' });
        break;
      }
      case 'delete': {
        const expected = model.isFile(op.path) ? 'ok' : model.isDir(op.path) ? 'PATH_IS_DIRECTORY' : 'PATH_NOT_FOUND';
        expect(await outcome(session.vfs.deleteFile(op.path)), where).toBe(expected);
        if (expected === 'ok') model.files.delete(op.path);
        break;
      }
      case 'read': {
        const file = model.files.get(op.path);
        const expected = file ? `ok ${Buffer.from(CONTENTS[file.content]!).toString('base64')}` : model.isDir(op.path) ? 'PATH_IS_DIRECTORY' : 'PATH_NOT_FOUND';
        expect(await outcome(session.vfs.readFile(op.path)), where).toBe(expected);
        expect(await session.vfs.exists(op.path), where).toBe(model.isFile(op.path) || model.isDir(op.path));
        break;
      }
      case 'list': {
        const expected = model.isDir(op.path) ? `ok ${JSON.stringify(model.children(op.path))}` : model.isFile(op.path) ? 'PATH_NOT_DIRECTORY' : 'PATH_NOT_FOUND';
        const listed = session.vfs.list(op.path).then((entries) => entries.filter((e) => e.path !== '.forge').map((e) => `${e.type} ${e.mode} ${e.name}`));
        expect(await outcome(listed), where).toBe(expected);
        break;
      }
      case 'commit': {
        const turn = await session.commitTurn();
        lastCommit = turn.commit;
        expect(await session.vfs.diff(), where).toEqual([]);
        const committed = new CommitVfs(session.repo, turn.commit, turn.tree);
        expect(await viewSnapshot(committed), where).toEqual(model.snapshot());
        if (opts.gitCheck === 'every-commit') {
          const files = gitFiles(r, turn.commit);
          expect(Object.fromEntries(Object.entries(files).map(([p, f]) => [p, `${f.mode} ${toBase64(f.content)}`])), where).toEqual(model.snapshot());
        }
        break;
      }
      case 'reopen': {
        // Drop the Session (a crash) and open it again through a new Repository: the journal brings the pending layer back.
        session = await new SessionStore(await r.open()).open('model');
        break;
      }
    }
    expect(await viewSnapshot(session.vfs), `${where}: walk()`).toEqual(model.snapshot());
    // Every directory on the way to the path the op touched lists exactly the model's children.
    const parts = 'path' in op ? op.path.split('/') : [];
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!model.isDir(dir)) break;
      const listed = (await session.vfs.list(dir)).filter((e) => e.path !== '.forge').map((e) => `${e.type} ${e.mode} ${e.name}`);
      expect(listed, `${where}: list(${JSON.stringify(dir)})`).toEqual(model.children(dir));
    }
  }
  if (opts.gitCheck === 'last-commit' && lastCommit !== null) {
    const files = gitFiles(r, lastCommit);
    expect(Object.fromEntries(Object.entries(files).map(([p, f]) => [p, `${f.mode} ${toBase64(f.content)}`]))).toEqual(
      await viewSnapshot(new CommitVfs(session.repo, lastCommit, (await session.repo.readCommit(lastCommit)).tree)),
    );
  }
  // Every commit of the run is reachable from the session branch, so one fsck judges them all.
  if (opts.gitCheck !== 'none' && lastCommit !== null) r.fsck();
}

function toBase64(content: string): string {
  return content.startsWith('base64:') ? content.slice(7) : Buffer.from(content, 'utf8').toString('base64');
}
