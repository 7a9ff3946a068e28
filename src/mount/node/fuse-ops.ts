/**
 * MountFs's operations in fuse-native's callback shape: FUSE's '/a/b' paths to the view's
 * 'a/b', results to stat arrays and byte counts, errors to the platform's negative errno.
 * No decisions here: every answer comes from MountFs.
 */
import { constants } from 'node:fs';
import { errnoOf, type Errno } from '../errno';
import type { FileAttr } from '../file-attr';
import type { MountFs } from '../mount-fs';
import { repoPathOf } from '../mount-paths';
import type { FuseModule, FuseOps } from './fuse-native';

type Cb = (...args: unknown[]) => void;

export interface FuseOpsOptions {
  /** Where unexpected failures (Forge bugs, EIO) are reported: a file system cannot print to its caller. */
  log: (line: string) => void;
}

export function fuseOps(fs: MountFs, Fuse: FuseModule, options: FuseOpsOptions): FuseOps {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const errno = (name: Errno): number => (Fuse[name] as number | undefined) ?? (name === 'ENOTSUP' ? (Fuse.EOPNOTSUPP as number) : (Fuse.EIO as number));
  const fail = (op: string, path: string, error: unknown): number => {
    const { errno: name, unexpected } = errnoOf(error);
    if (unexpected) options.log(`forge mount: ${op} ${path}: ${(error as Error).stack ?? String(error)}`);
    return errno(name);
  };
  const stat = (attr: FileAttr) => ({ mode: attr.mode, size: attr.size, blocks: Math.ceil(attr.size / 512), blksize: 4096, mtime: attr.mtime, atime: attr.mtime, ctime: attr.mtime, uid, gid, nlink: (attr.mode & 0o170000) === 0o040000 ? 2 : 1 });
  /** Calls cb(0, ...result) or cb(-errno). */
  const reply = <T>(op: string, path: string, cb: Cb, run: () => Promise<T>, shape: (value: T) => unknown[] = () => []) => {
    run().then(
      (value) => cb(0, ...shape(value)),
      (error) => cb(fail(op, path, error)),
    );
  };
  /** read and write answer with a byte count in the error position. */
  const count = (op: string, path: string, cb: Cb, run: () => Promise<number>) => {
    run().then(
      (n) => cb(n),
      (error) => cb(fail(op, path, error)),
    );
  };
  const accessMode = constants.O_RDONLY | constants.O_WRONLY | constants.O_RDWR; // O_ACCMODE

  const ops = {
    getattr: (path: string, cb: Cb) => reply('getattr', path, cb, () => fs.getattr(repoPathOf(path)), (attr) => [stat(attr)]),
    fgetattr: (path: string, fd: number, cb: Cb) => reply('fgetattr', path, cb, () => fs.fgetattr(fd, repoPathOf(path)), (attr) => [stat(attr)]),
    readdir: (path: string, cb: Cb) => reply('readdir', path, cb, () => fs.readdir(repoPathOf(path)), (names) => [names]),
    readlink: (path: string, cb: Cb) => reply('readlink', path, cb, () => fs.readlink(repoPathOf(path)), (target) => [target]),
    access: (_path: string, _mode: number, cb: Cb) => cb(0),
    statfs: (_path: string, cb: Cb) => cb(0, { bsize: 4096, frsize: 4096, blocks: 1 << 24, bfree: 1 << 23, bavail: 1 << 23, files: 1 << 20, ffree: 1 << 19, favail: 1 << 19, fsid: 0, flag: 0, namemax: 255 }),
    open: (path: string, flags: number, cb: Cb) =>
      reply('open', path, cb, () => fs.open(repoPathOf(path), { truncate: (flags & constants.O_TRUNC) !== 0, scratchFlags: flags & (accessMode | constants.O_APPEND | constants.O_TRUNC) }), (fd) => [fd]),
    create: (path: string, mode: number, cb: Cb) =>
      // libfuse2's create passes no flags here; the kernel already refused O_EXCL on an existing name.
      reply('create', path, cb, () => fs.create(repoPathOf(path), mode, { exclusive: false, scratchFlags: constants.O_RDWR }), (fd) => [fd]),
    read: (path: string, fd: number, buffer: Buffer, length: number, position: number, cb: Cb) =>
      count('read', path, cb, async () => {
        const bytes = await fs.read(fd, length, position);
        buffer.set(bytes);
        return bytes.length;
      }),
    write: (path: string, fd: number, buffer: Buffer, length: number, position: number, cb: Cb) =>
      // The binding reuses its buffer after the callback: the bytes are copied before any await.
      count('write', path, cb, () => fs.write(fd, Uint8Array.prototype.slice.call(buffer, 0, length), position)),
    flush: (path: string, fd: number, cb: Cb) => reply('flush', path, cb, () => fs.flush(fd)),
    fsync: (path: string, _datasync: boolean, fd: number, cb: Cb) => reply('fsync', path, cb, () => fs.fsync(fd)),
    release: (path: string, fd: number, cb: Cb) => reply('release', path, cb, () => fs.release(fd)),
    truncate: (path: string, size: number, cb: Cb) => reply('truncate', path, cb, () => fs.truncate(repoPathOf(path), size)),
    ftruncate: (path: string, fd: number, size: number, cb: Cb) => reply('ftruncate', path, cb, () => fs.ftruncate(fd, size)),
    unlink: (path: string, cb: Cb) => reply('unlink', path, cb, () => fs.unlink(repoPathOf(path))),
    rename: (from: string, to: string, cb: Cb) => reply('rename', from, cb, () => fs.rename(repoPathOf(from), repoPathOf(to))),
    mkdir: (path: string, mode: number, cb: Cb) => reply('mkdir', path, cb, () => fs.mkdir(repoPathOf(path), mode)),
    rmdir: (path: string, cb: Cb) => reply('rmdir', path, cb, () => fs.rmdir(repoPathOf(path))),
    chmod: (path: string, mode: number, cb: Cb) => reply('chmod', path, cb, () => fs.chmod(repoPathOf(path), mode)),
    // Ownership is the mounting user's; a chown (tar, cp -a as root) is accepted and has no effect, as git keeps none.
    chown: (_path: string, _uid: number, _gid: number, cb: Cb) => cb(0),
    symlink: (target: string, path: string, cb: Cb) => reply('symlink', path, cb, () => fs.symlink(target, repoPathOf(path))),
    utimens: (path: string, atime: number, mtime: number, cb: Cb) => reply('utimens', path, cb, () => fs.utimens(repoPathOf(path), new Date(mtime), new Date(atime))),
    link: (_from: string, to: string, cb: Cb) => reply('link', to, cb, async () => fs.refuseSpecial('Hard links', repoPathOf(to))),
    mknod: (path: string, _mode: number, _dev: number, cb: Cb) => reply('mknod', path, cb, async () => fs.refuseSpecial('Device files, FIFOs and sockets', repoPathOf(path))),
    // No extended attributes: git keeps none (cp -a and tar take "not supported" as the answer).
    getxattr: (_path: string, _name: string, _position: number, cb: Cb) => cb(errno('ENODATA')),
    listxattr: (_path: string, cb: Cb) => cb(0, []),
    setxattr: (_path: string, _name: string, _value: Buffer, _position: number, _flags: number, cb: Cb) => cb(errno('ENOTSUP')),
    removexattr: (_path: string, _name: string, cb: Cb) => cb(errno('ENODATA')),
  };
  return ops as unknown as FuseOps;
}
