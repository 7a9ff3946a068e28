/**
 * Objects a hostile remote (or a collaborator pushing to a server without receive.fsckObjects)
 * can hold, made with plain git: trees written with `hash-object --literally`, so names git
 * would refuse to check out (`.git`, `..`, `git~1`, …) and malformed entries go in as given.
 */
import { git } from './git-cli';

export interface RawEntry {
  /** The mode as written in the tree ("40000" for a directory). */
  mode: string;
  name: string | Buffer;
  oid: string;
}

export function writeBlob(dir: string, content: string | Buffer): string {
  return git(dir, ['hash-object', '-w', '--stdin'], { input: content }).stdout.trim();
}

/** A tree of exactly these entries in this order (no sorting, no checks). */
export function writeRawTree(dir: string, entries: readonly RawEntry[]): string {
  const parts: Buffer[] = [];
  for (const e of entries) parts.push(Buffer.from(`${e.mode} `), Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name, 'utf8'), Buffer.from([0]), Buffer.from(e.oid, 'hex'));
  return git(dir, ['hash-object', '-w', '--literally', '-t', 'tree', '--stdin'], { input: Buffer.concat(parts) }).stdout.trim();
}

export type FileSpec = string | { content: string; mode: '100644' | '100755' | '120000' };

/** Nested trees of these files (paths split on "/", names taken as given), in git's order. */
export function writeTreeOf(dir: string, files: Record<string, FileSpec>): string {
  type Node = Map<string, Node | { oid: string; mode: string }>;
  const root: Node = new Map();
  for (const [path, spec] of Object.entries(files)) {
    const parts = path.split('/');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.get(part);
      if (!(next instanceof Map)) {
        next = new Map();
        node.set(part, next);
      }
      node = next;
    }
    const content = typeof spec === 'string' ? spec : spec.content;
    node.set(parts[parts.length - 1]!, { oid: writeBlob(dir, content), mode: typeof spec === 'string' ? '100644' : spec.mode });
  }
  const write = (node: Node): string => {
    const entries: RawEntry[] = [];
    for (const [name, child] of node) entries.push(child instanceof Map ? { mode: '40000', name, oid: write(child) } : { mode: child.mode, name, oid: child.oid });
    const key = (e: RawEntry) => Buffer.from(e.mode === '40000' ? `${e.name}/` : String(e.name));
    entries.sort((a, b) => Buffer.compare(key(a), key(b)));
    return writeRawTree(dir, entries);
  };
  return write(root);
}

export function commitTree(dir: string, tree: string, parents: readonly string[] = [], message = 'hostile\n'): string {
  return git(dir, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { input: message }).stdout.trim();
}

/** A commit object written as given (for malformed headers). */
export function writeRawCommit(dir: string, text: string): string {
  return git(dir, ['hash-object', '-w', '--literally', '-t', 'commit', '--stdin'], { input: text }).stdout.trim();
}
