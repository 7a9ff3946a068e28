/**
 * Inline history builders for the branches tests (after jj's create_tree): commits made with the
 * engine's own object layer on a memfs repository, read like the situation they set up.
 */
import { buildTree, ZERO_OID, type FileChange, type Repository } from '../../../src/git';
import { MEMFS_BACKENDS, type EngineRepo } from '../../helpers/engine-repos';
import type { MakeRepoOptions } from '../../helpers/repo-files';

export type FileValue = string | Uint8Array | { content: string | Uint8Array; mode: '100644' | '100755' | '120000' } | null;

const encoder = new TextEncoder();
let clock = 1_704_067_200;

export interface Fixture {
  engine: EngineRepo;
  repo: Repository;
  /** Commits `files` (null deletes) on top of `parent`; returns the new commit oid. */
  commit(parent: string | string[], files: Record<string, FileValue>, message?: string): Promise<string>;
  /** Points a branch at a commit (creating or moving it). */
  branch(name: string, oid: string): Promise<void>;
  /** The tree of a commit, as path -> text (binary as latin1), for asserting. */
  files(commit: string): Promise<Record<string, string>>;
  modeOf(commit: string, path: string): Promise<string | undefined>;
}

const made: EngineRepo[] = [];

/** `git fsck --strict` on every repository made since the last call (use in afterEach). */
export function fsckFixtures(): void {
  for (const engine of made.splice(0)) engine.fsck();
}

export async function fixture(files: MakeRepoOptions['files'], backend = MEMFS_BACKENDS[0]!, bare = true): Promise<Fixture> {
  const engine = await backend.make({ files, bare });
  made.push(engine);
  const repo = await engine.open();
  const who = () => ({ name: 'Forge Test', email: 'forge-test@example.invalid', timestamp: clock++, timezoneOffset: 0 });
  const self: Fixture = {
    engine,
    repo,
    async commit(parent, changes, message = 'change\n') {
      const parents = Array.isArray(parent) ? parent : [parent];
      const baseTree = (await repo.readCommit(parents[0]!)).tree;
      const list: Array<[string, FileChange]> = [];
      for (const [path, value] of Object.entries(changes)) {
        if (value === null) {
          list.push([path, null]);
          continue;
        }
        const { content, mode } = typeof value === 'string' || value instanceof Uint8Array ? { content: value, mode: '100644' as const } : value;
        const oid = await repo.writeBlob(typeof content === 'string' ? encoder.encode(content) : content);
        list.push([path, { oid, mode }]);
      }
      const tree = await buildTree(repo, baseTree, list);
      const sig = who();
      return repo.writeCommit({ tree, parents, author: sig, committer: sig, message });
    },
    async branch(name, oid) {
      const ref = name.startsWith('refs/') ? name : `refs/heads/${name}`;
      const current = (await repo.refs.resolve(ref)) ?? ZERO_OID;
      await repo.refs.update({ ref, newOid: oid, expectedOid: current, committer: who(), reflogMessage: 'test' });
    },
    async files(commit) {
      const out: Record<string, string> = {};
      const walk = async (tree: string, prefix: string) => {
        for (const e of await repo.readTree(tree)) {
          const path = prefix ? `${prefix}/${e.name}` : e.name;
          if (e.mode === '040000') await walk(e.oid, path);
          else out[path] = Buffer.from(await repo.readBlob(e.oid)).toString('latin1');
        }
      };
      await walk((await repo.readCommit(commit)).tree, '');
      return out;
    },
    async modeOf(commit, path) {
      let tree = (await repo.readCommit(commit)).tree;
      const parts = path.split('/');
      for (let i = 0; i < parts.length; i++) {
        const e = (await repo.readTree(tree)).find((x) => x.name === parts[i]);
        if (!e) return undefined;
        if (i === parts.length - 1) return e.mode;
        tree = e.oid;
      }
      return undefined;
    },
  };
  return self;
}

/** The lines 1..n as text, with optional replacements by line number. */
export function lines(n: number, replace: Record<number, string> = {}): string {
  let out = '';
  for (let i = 1; i <= n; i++) out += `${replace[i] ?? `line ${i}`}\n`;
  return out;
}
