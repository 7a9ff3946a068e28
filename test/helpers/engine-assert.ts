/** Assertions shared by the engine's suites: error codes, and what git itself reads back. */
import { expect } from 'vitest';
import { isForgeError, type ErrorCode } from '../../src/errors';
import type { EngineRepo } from './engine-repos';
import { git } from './git-cli';
import { gitLsTree } from './repos';

/** The ForgeError code a promise rejects with ('success' / 'non-forge: ...' otherwise). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'success',
    (e: unknown) => (isForgeError(e) ? e.code : `non-forge: ${e instanceof Error ? e.stack : String(e)}`),
  );
}

export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  expect(await codeOf(promise)).toBe(code);
}

export interface GitFile {
  mode: string;
  /** The bytes as git prints them: UTF-8 text when it decodes cleanly, else "base64:<...>". */
  content: string;
}

/** Every file of a commit as the git CLI reads it (`git ls-tree -r` + `git cat-file --batch`), the session files left out. */
export function gitFiles(r: EngineRepo, commit: string, opts: { withSessionFiles?: boolean } = {}): Record<string, GitFile> {
  const gitdir = r.diskGitdir();
  const entries = gitLsTree(gitdir, commit).filter((e) => opts.withSessionFiles || !e.path.startsWith('.forge/'));
  const contents = gitCatFiles(gitdir, entries.map((e) => e.oid));
  const out: Record<string, GitFile> = {};
  for (const entry of entries) out[entry.path] = { mode: entry.mode, content: showable(contents.get(entry.oid)!) };
  return out;
}

/** The bytes of blobs, all through one `git cat-file --batch`. */
export function gitCatFiles(gitdir: string, oids: string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (oids.length === 0) return out;
  const raw = git(gitdir, [`--git-dir=${gitdir}`, 'cat-file', '--batch'], { input: oids.join('\n') + '\n' }).stdoutBuffer;
  let i = 0;
  while (i < raw.length) {
    const nl = raw.indexOf(0x0a, i);
    const [oid, , size] = raw.subarray(i, nl).toString().split(' ') as [string, string, string];
    out.set(oid, raw.subarray(nl + 1, nl + 1 + Number(size)));
    i = nl + 1 + Number(size) + 1;
  }
  return out;
}

export function showable(data: Uint8Array): string {
  const buffer = Buffer.from(data);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    return `base64:${buffer.toString('base64')}`;
  }
}
