/**
 * One handle per repository: where it is, its object store, refs and config, and the caches
 * every read shares (trees by oid, isomorphic-git's cache object inside the store).
 * fs-agnostic: node's fs, memfs, or lightning-fs, with a platform for hashing and zlib.
 */
import { bytesLength, joinBytes, type Bytes } from './byte-runs';
import type { GitDate } from './git-date';
import { ForgeError } from '../errors';
import { RepoConfig, assertSupportedFormat } from './config';
import { asGitFs, errnoCode, joinPath, pathExists, withSyncPromises, type GitFs, type GitFsInput } from './fs';
import { WeightedLru } from './lru';
import { mkdirp } from './fs-capabilities';
import { isGcRunning, waitForRunningGc } from './gc-guard';
import { encodeTree, parseCommit, parseCommitLinks, parseTag, parseTree, serializeCommit, type Commit, type CommitLinks, type Signature, type TreeEntry } from './object-codec';
import { ObjectStore } from './object-store';
import { portablePlatform, type GitPlatform } from './platform';
import { RefStore } from './refs';
import { refNameProblem } from './ref-name';
import { listTreeFiles, type TreeFiles } from './tree-files';
import type { RawTreeSource } from './raw-tree-diff';

export interface OpenRepositoryOptions {
  /** node's fs, memfs, lightning-fs, or anything with their promise API. */
  fs: GitFsInput;
  /** A working directory (searched upward for `.git`, like git) or a bare repository's directory. */
  dir?: string;
  /** The git directory itself; skips discovery. */
  gitdir?: string;
  platform?: GitPlatform;
  /**
   * Where commit identities come from besides the repository's config. The engine reads no
   * environment or home directory: an adapter (the CLI) resolves them as git does and passes
   * them here.
   */
  identity?: IdentitySources;
  /**
   * The time of everything the engine stamps (commits, session files, tool records) unless an
   * identity source fixes a date; default: the system clock. A fixed clock (with fixed dates or
   * an identity's `date`) makes the same calls on the same repository give the same oids, in Node
   * and in a browser.
   */
  clock?: () => Date;
}

export interface Person {
  name?: string;
  email?: string;
  /** A fixed date for this role's commits, zone included (what GIT_AUTHOR_DATE / GIT_COMMITTER_DATE say). */
  date?: GitDate;
}

export interface IdentitySources {
  /** Above the repository's config, as git's GIT_AUTHOR_* / GIT_COMMITTER_* variables are. */
  author?: Person;
  committer?: Person;
  /** Below it: the user's and the system's git config (user.name, user.email). */
  defaults?: Person;
}

export type IdentityRole = 'author' | 'committer';

export const DEFAULT_IDENTITY = { name: 'Forge', email: 'forge@localhost' } as const;

export class Repository {
  readonly objects: ObjectStore;
  readonly refs: RefStore;
  readonly config: RepoConfig;
  // Per entry: its object and strings (~96 bytes), plus its share of the tree's whole hex and
  // latin1 strings that the entries' oids and names are slices of (~3 bytes per tree byte, ~40
  // bytes per entry), so that the budget is what the cache really holds.
  private readonly trees = new WeightedLru<string, readonly TreeEntry[]>(64 * 1024 * 1024, (t) => 64 + t.length * 216);
  private readonly blobs = new WeightedLru<string, Uint8Array>(BLOB_CACHE_BYTES, (b) => 64 + b.length);
  /**
   * The last blob too large for the cache: a tool call reads a file several times (its content,
   * its hash, the recording view's diff), and a 50 MB file inflated for each read cost ~100 ms
   * and 50 MB a time. One is kept, so memory stays bounded by the largest file in use.
   */
  private largeBlob: { oid: string; bytes: Uint8Array } | null = null;
  /** SHA-256 of the bytes this repository handed out (shared and read-only by contract). */
  private readonly digests = new WeakMap<Bytes, string>();
  private readonly handedOut = new WeakSet<Bytes>();
  /** The blob oid of bytes this repository read or wrote: a large blob's SHA-256 is then kept by oid. */
  private readonly blobOids = new WeakMap<Bytes, string>();
  /** SHA-256 of large blobs by oid (also on disk: `<commondir>/forge/cache/sha256/<oid>`). */
  private readonly blobDigests = new Map<string, string>();

  private constructor(
    readonly fs: GitFs,
    /** The repository's git directory (for a linked worktree: its private gitdir). */
    readonly gitdir: string,
    /** Where objects and shared refs live (differs from gitdir only in linked worktrees). */
    readonly commonDir: string,
    /** The working directory of a non-bare repository, or null when bare. */
    readonly workdir: string | null,
    readonly platform: GitPlatform,
    alternates: string[],
    private readonly identitySources: IdentitySources = {},
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.config = new RepoConfig(fs, commonDir);
    this.objects = new ObjectStore(fs, commonDir, platform, alternates);
    this.refs = new RefStore(
      fs,
      commonDir,
      async () => (await this.config.getBool('core.logAllRefUpdates')) ?? this.workdir !== null,
      () => this.objects.settle(() => waitForRunningGc(fs, commonDir, platform.processInfo)),
      () => this.objects.beforeRefUpdate(() => waitForRunningGc(fs, commonDir, platform.processInfo)),
      () => this.objects.racesGc(() => isGcRunning(fs, commonDir, platform.processInfo)),
      () => this.objects.restoreUnsettled(),
    );
  }

  static async open(options: OpenRepositoryOptions): Promise<Repository> {
    const platform = options.platform ?? portablePlatform;
    // Where the platform reads synchronously (Node), small file operations do too. Without it
    // (a browser, or tests standing in for one) the fs is used as given.
    const fs = platform.sync ? withSyncPromises(asGitFs(options.fs)) : asGitFs(options.fs);
    const found = options.gitdir !== undefined ? { gitdir: options.gitdir, workdir: null as string | null } : await discover(fs, options.dir ?? '.');
    const commonDir = await readCommonDir(fs, found.gitdir);
    const config = new RepoConfig(fs, commonDir);
    await assertSupportedFormat(config, found.gitdir);
    const bare = await config.getBool('core.bare');
    const workdir = bare === true ? null : found.workdir;
    return new Repository(fs, found.gitdir, commonDir, workdir, platform, await readAlternates(fs, commonDir), options.identity, options.clock);
  }

  get bare(): boolean {
    return this.workdir === null;
  }

  async readCommit(oid: string): Promise<Commit> {
    return parseCommit(await this.objects.readTyped(oid, 'commit'), oid);
  }

  /** A commit's parents and committer time only (graph walks: merge bases, ancestry). */
  async readCommitLinks(oid: string): Promise<CommitLinks> {
    return parseCommitLinks(await this.objects.readTyped(oid, 'commit'), oid);
  }

  /** Tree entries in git order; cached by oid (trees never change). */
  async readTree(oid: string): Promise<readonly TreeEntry[]> {
    const cached = this.trees.get(oid);
    if (cached !== undefined) return cached;
    const entries = parseTree(await this.objects.readTyped(oid, 'tree'), oid, this.platform.text);
    this.trees.set(oid, entries);
    return entries;
  }

  /** Every file below a tree, flattened from the trees' bytes (see tree-files.ts); not cached. */
  listFiles(tree: string, prefix = ''): Promise<TreeFiles> {
    const text = this.platform.text;
    return listTreeFiles(tree, (oid) => this.objects.readTypedNow(oid, 'tree'), {
      prefix,
      hex: text?.hex,
      isUtf8: text?.isUtf8,
      readRaw: (raw) => this.objects.packedTreeNow(raw),
    });
  }

  /** The trees' bytes for walks over them (tree diffs): sync where the store reads so, packed trees by raw oid. */
  rawTrees(): RawTreeSource {
    return { read: (oid) => this.objects.readTypedNow(oid, 'tree'), readRaw: (raw) => this.objects.packedTreeNow(raw), hex: this.platform.text?.hex };
  }

  /**
   * A blob's bytes. Recently read blobs are kept (by oid, so never stale, bounded by size): one
   * tool call reads the same file several times (its size, its pre-edit content, its hash).
   * The bytes are shared: treat them as read-only, as the object they come from.
   */
  async readBlob(oid: string): Promise<Uint8Array> {
    const cached = this.blobs.get(oid) ?? (this.largeBlob?.oid === oid ? this.largeBlob.bytes : undefined);
    if (cached !== undefined) return cached;
    const content = ownBytes(await this.objects.readTyped(oid, 'blob'));
    this.keepBlob(oid, content);
    this.handedOut.add(content);
    this.blobOids.set(content, oid);
    return content;
  }

  private keepBlob(oid: string, bytes: Uint8Array): void {
    if (64 + bytes.length <= BLOB_CACHE_BYTES) this.blobs.set(oid, bytes);
    else this.largeBlob = { oid, bytes };
  }

  /**
   * SHA-256 hex of file bytes, remembered by the bytes object for what this repository handed out
   * (readBlob) and for large buffers: a tool call hashes one large file several times (the read
   * hash, the edit's result, the recording view's record). Like readBlob's, such bytes must not
   * be changed afterwards; the tools never do.
   */
  async sha256Hex(bytes: Bytes): Promise<string> {
    const known = this.digests.get(bytes);
    if (known !== undefined) return known;
    const size = bytesLength(bytes);
    // Runs (a large file's new version around an edit) are hashed run by run where the platform can.
    const parts = this.platform.sync?.sha256HexParts;
    const digest = bytes instanceof Uint8Array || parts === undefined ? await this.platform.sha256Hex(joinBytes(bytes)) : parts(bytes);
    if (this.handedOut.has(bytes) || size >= REMEMBERED_DIGEST_BYTES) this.digests.set(bytes, digest);
    const oid = this.blobOids.get(bytes);
    if (oid !== undefined && size >= DIGEST_BY_OID_BYTES) await this.rememberBlobDigest(oid, digest);
    return digest;
  }

  /**
   * The SHA-256 of a large blob's content, when this repository hashed it before (in this
   * process, or in an earlier one: kept on disk by oid, as a blob never changes); else null. A
   * tool that only needs a 100 MB file's hash (write_file's stale check) then never inflates it.
   */
  async blobSha256(oid: string): Promise<string | null> {
    const known = this.blobDigests.get(oid);
    if (known !== undefined) return known;
    const stored = await this.fs.promises.readFile(this.digestPath(oid), 'utf8').then(String, () => '');
    if (!/^[0-9a-f]{64}$/.test(stored)) return null;
    this.blobDigests.set(oid, stored);
    return stored;
  }

  private async rememberBlobDigest(oid: string, digest: string): Promise<void> {
    if (this.blobDigests.get(oid) === digest) return;
    if (this.blobDigests.size >= 4096) this.blobDigests.clear();
    this.blobDigests.set(oid, digest);
    // Best effort: a cache that cannot be written (read-only repository) costs a hash later.
    const path = this.digestPath(oid);
    await mkdirp(this.fs, path.slice(0, path.lastIndexOf('/')))
      .then(() => this.fs.promises.writeFile(path, digest))
      .catch(() => undefined);
  }

  private digestPath(oid: string): string {
    return joinPath(this.commonDir, 'forge', 'cache', 'sha256', oid.slice(0, 2), oid.slice(2));
  }

  /** A blob's size: from the cache, else from its object header (the blob is not inflated). */
  async blobSize(oid: string): Promise<number> {
    return this.blobs.get(oid)?.length ?? this.objects.sizeOf(oid);
  }

  /**
   * Writes a blob. A tool reads back what it wrote (hash, size), so the bytes are kept at hand,
   * unless `keep` is false: for what is written and not read again (a session's state file,
   * megabytes in a long session, would push useful blobs out of the cache). Content given as
   * runs (a large file's new version around an edit) is not kept: joining it is the copy the
   * runs avoid; a read of it inflates it. Nor is a blob the object store holds staged.
   */
  async writeBlob(content: Bytes, options: { keep?: boolean } = {}): Promise<string> {
    const oid = await this.objects.write('blob', content);
    this.blobOids.set(content, oid);
    // A blob staged with a batch (a `forge turn`'s write) is read from the batch until it is
    // written; a copy in the cache too held ~16 MiB more through a 10,000-call turn.
    if (options.keep !== false && content instanceof Uint8Array && !this.objects.isStaged(oid)) {
      const kept = ownBytes(content);
      this.keepBlob(oid, kept);
      this.blobOids.set(kept, oid);
    }
    return oid;
  }

  /**
   * Each of these objects that is not on disk now (a `git prune` removed it) is written again
   * from what this process still holds: the blob cache, what the object store wrote since the
   * last ref move, the parsed trees. Returns the oids that
   * are neither on disk nor held (their content is gone).
   */
  async restoreFromMemory(oids: Iterable<string>): Promise<string[]> {
    const lost: string[] = [];
    for (const oid of oids) {
      if ((await this.objects.ensureHeld(oid)) || (await this.objects.freshen(oid))) continue;
      const blob = this.blobs.get(oid) ?? (this.largeBlob?.oid === oid ? this.largeBlob.bytes : undefined);
      if (blob !== undefined && (await this.objects.write('blob', blob)) === oid) continue;
      const tree = this.trees.get(oid);
      if (tree !== undefined && (await this.writeTree(tree)) === oid) continue;
      lost.push(oid);
    }
    return lost;
  }

  /**
   * Validates entries as git's fsck does, sorts them as git does, writes the tree. `cache: false`
   * for trees nobody reads back (the pending pin's: one new root per tool call, whose entries
   * would fill the tree cache's 64 MiB in a long turn).
   */
  async writeTree(entries: readonly TreeEntry[], options: { cache?: boolean } = {}): Promise<string> {
    const { content, sorted } = encodeTree(entries, this.platform.text);
    const oid = await this.objects.write('tree', content);
    // Cached in git's order, as readTree would return them from the object (callers may pass any order).
    if (options.cache !== false) this.trees.set(oid, sorted);
    return oid;
  }

  writeCommit(commit: Commit): Promise<string> {
    return this.objects.write('commit', serializeCommit(commit));
  }

  /**
   * An author or committer, by git's precedence: explicit values, the GIT_AUTHOR_* /
   * GIT_COMMITTER_* values passed at open, the repository's author.* / committer.* then user.*
   * config, the user's and system's config passed at open, else Forge <forge@localhost>.
   */
  /** The repository's clock (Repository.open's `clock`, else the system's). */
  now(): Date {
    return this.clock();
  }

  /**
   * Who signs a commit in `role`, and when: an explicit override first, then the identity
   * sources (their fixed `date` included), the repository's config, the defaults; the time is
   * `now`'s (the caller's clock, else the repository's) in the host's zone unless a date is fixed.
   */
  async identity(override: Partial<Signature> = {}, now: Date = this.clock(), role: IdentityRole = 'author'): Promise<Signature> {
    const sources = this.identitySources;
    const pick = async (field: 'name' | 'email') =>
      override[field] ??
      sources[role]?.[field] ??
      (await this.config.getString(`${role}.${field}`)) ??
      (await this.config.getString(`user.${field}`)) ??
      sources.defaults?.[field] ??
      DEFAULT_IDENTITY[field];
    return {
      name: await pick('name'),
      email: await pick('email'),
      timestamp: override.timestamp ?? sources[role]?.date?.timestamp ?? Math.floor(now.getTime() / 1000),
      timezoneOffset: override.timezoneOffset ?? sources[role]?.date?.timezoneOffset ?? -now.getTimezoneOffset(),
    };
  }

  /**
   * A revision to a commit oid: a full or abbreviated oid, a ref (full, or short as git
   * expands it: refs/<x>, refs/tags/<x>, refs/heads/<x>, refs/remotes/<x>), HEAD, with any
   * number of `~N`, `^` and `^N` suffixes. Annotated tags are peeled. Only HEAD and names under
   * refs/ are read as refs (never another file of the git directory: `config`, `logs/HEAD`).
   */
  async resolveCommit(revision: string): Promise<string> {
    const match = /^(.*?)((?:[~^]\d*)*)$/.exec(revision)!;
    let oid = await this.peelToCommit(await this.resolveBase(match[1]!, revision), revision);
    for (const step of match[2]!.match(/[~^]\d*/g) ?? []) {
      const n = step.length > 1 ? Number(step.slice(1)) : 1;
      if (step[0] === '~') {
        for (let i = 0; i < n; i++) oid = await this.parentOf(oid, 1, revision);
      } else if (n > 0) {
        oid = await this.parentOf(oid, n, revision);
      }
    }
    return oid;
  }

  close(): void {
    this.objects.close();
    this.trees.clear();
    this.blobs.clear();
  }

  private async resolveBase(name: string, revision: string): Promise<string> {
    if (name === '') throw new ForgeError('REF_NOT_FOUND', `Revision "${revision}" is empty.`, { data: { revision } });
    if (/^[0-9a-f]{40}$/.test(name) && (await this.objects.has(name))) return name;
    // git's rev-parse rules without the bare "<name>" one (only HEAD-like pseudo refs live there),
    // and no name git would refuse as a ref: nothing else of the git directory is read as a ref.
    const candidates = (name === 'HEAD' || name.startsWith('refs/') ? [name] : [`refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`]).filter(
      (ref) => ref === 'HEAD' || refNameProblem(ref) === null,
    );
    for (const ref of candidates) {
      const oid = ref === 'HEAD' ? await this.resolveHead() : await this.refs.resolve(ref);
      if (oid !== null) return oid;
    }
    if (/^[0-9a-f]{4,39}$/.test(name)) {
      const matches = await this.objects.findByPrefix(name, 2);
      if (matches.length === 1) return matches[0]!;
      if (matches.length > 1) throw new ForgeError('REF_NOT_FOUND', `Abbreviated oid "${name}" is ambiguous; give more characters.`, { data: { revision } });
    }
    throw new ForgeError('REF_NOT_FOUND', `Revision "${revision}" does not name a commit, branch or tag in this repository.`, { data: { revision } });
  }

  /** HEAD lives in the worktree's own gitdir; what it points at lives in the common dir. */
  private async resolveHead(): Promise<string | null> {
    let text: string;
    try {
      text = (await this.fs.promises.readFile(joinPath(this.gitdir, 'HEAD'), 'utf8')).trim();
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
    if (text.startsWith('ref:')) return this.refs.resolve(text.slice(4).trim());
    return /^[0-9a-f]{40}$/.test(text) ? text : null;
  }

  private async peelToCommit(oid: string, revision: string): Promise<string> {
    for (let depth = 0; depth < 20; depth++) {
      const object = await this.objects.read(oid);
      if (object.type === 'commit') return oid;
      if (object.type !== 'tag') {
        throw new ForgeError('OBJECT_TYPE_MISMATCH', `Revision "${revision}" names a ${object.type}, not a commit.`, { data: { revision, oid } });
      }
      oid = parseTag(object.content, oid).object;
    }
    throw new ForgeError('OBJECT_CORRUPT', `Tag chain of "${revision}" is too long.`, { data: { revision } });
  }

  private async parentOf(oid: string, n: number, revision: string): Promise<string> {
    const parent = (await this.readCommit(oid)).parents[n - 1];
    if (parent === undefined) throw new ForgeError('REF_NOT_FOUND', `Revision "${revision}" goes past a commit that has no parent ${n}.`, { data: { revision } });
    return parent;
  }
}

async function discover(fs: GitFs, start: string): Promise<{ gitdir: string; workdir: string | null }> {
  let dir = start.length > 1 && start.endsWith('/') ? start.slice(0, -1) : start;
  for (;;) {
    const dotGit = joinPath(dir, '.git');
    const stat = await fs.promises.stat(dotGit).catch(() => null);
    if (stat?.isDirectory()) return { gitdir: dotGit, workdir: dir };
    if (stat?.isFile()) {
      // A linked worktree or submodule: ".git" is a file "gitdir: <path>".
      const text = (await fs.promises.readFile(dotGit, 'utf8')).trim();
      if (text.startsWith('gitdir:')) {
        const target = text.slice(7).trim();
        return { gitdir: target.startsWith('/') ? target : joinPath(dir, target), workdir: dir };
      }
    }
    if ((await pathExists(fs, joinPath(dir, 'HEAD'))) && (await pathExists(fs, joinPath(dir, 'objects'))) && (await pathExists(fs, joinPath(dir, 'refs')))) {
      return { gitdir: dir, workdir: null };
    }
    const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) || '/' : null;
    if (parent === null || parent === dir) break;
    dir = parent;
  }
  throw new ForgeError('NOT_A_REPOSITORY', `No git repository at ${start} or any of its parents.`, { data: { dir: start }, hint: 'Pass --repo with the path of a git repository.' });
}

async function readCommonDir(fs: GitFs, gitdir: string): Promise<string> {
  try {
    const text = (await fs.promises.readFile(joinPath(gitdir, 'commondir'), 'utf8')).trim();
    return text.startsWith('/') ? text : joinPath(gitdir, text);
  } catch {
    return gitdir;
  }
}

async function readAlternates(fs: GitFs, commonDir: string): Promise<string[]> {
  try {
    const text = await fs.promises.readFile(joinPath(commonDir, 'objects/info/alternates'), 'utf8');
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => (line.startsWith('/') ? line : joinPath(commonDir, 'objects', line)));
  } catch {
    return [];
  }
}

/**
 * The bytes to keep in the blob cache. A small view into a larger buffer (Node's 8 KiB allocation
 * pool, which small inflated blobs and a caller's small Buffers come from) would keep all of that
 * buffer alive while cached, several times what the cache counts: such a view is copied. A view
 * that is most of its buffer (a huge write_file's content inside the calls file it was decoded
 * in) is kept as it is: copying it would hold the content twice.
 */
const BLOB_CACHE_BYTES = 16 * 1024 * 1024;
/** From this size a view that is most of its buffer is kept as it is. */
const LARGE_VIEW_BYTES = 1024 * 1024;
/** From this size a blob's SHA-256 is remembered by its oid, on disk too (hashing 1 MiB: ~2 ms). */
const DIGEST_BY_OID_BYTES = 1024 * 1024;
/** From this size a hash costs more than remembering it (a few hundred µs). */
const REMEMBERED_DIGEST_BYTES = 64 * 1024;

function ownBytes(bytes: Uint8Array): Uint8Array {
  const wasted = bytes.buffer.byteLength - bytes.byteLength;
  if (wasted <= 1024 || (bytes.byteLength >= LARGE_VIEW_BYTES && wasted <= bytes.byteLength)) return bytes;
  return Uint8Array.prototype.slice.call(bytes);
}
