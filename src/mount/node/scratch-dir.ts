/**
 * The scratch layer on real disk: `<commondir>/forge/scratch/<session>/`, one directory per
 * session, kept across turns and mounts, removed with the session (forge session discard, or the
 * next discard or mount after its branch was deleted). Plain passthrough: every call is the real syscall.
 */
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { S_IFMT, type FileAttr } from '../file-attr';
import type { ScratchLayer } from '../scratch';

export { sessionScratchDir as scratchDirOf } from '../../session/scratch-path';

export class ScratchDir implements ScratchLayer {
  private readonly files = new Map<number, fsp.FileHandle>();

  constructor(readonly root: string) {}

  protected real(path: string): string {
    return path === '' ? this.root : join(this.root, path);
  }

  async lstat(path: string): Promise<FileAttr | null> {
    try {
      const st = await fsp.lstat(this.real(path));
      return { mode: st.mode & (S_IFMT | 0o7777), size: st.size, mtime: st.mtime };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async readdir(path: string): Promise<string[]> {
    try {
      return await fsp.readdir(this.real(path));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async mkdir(path: string, mode: number): Promise<void> {
    await fsp.mkdir(dirname(this.real(path)), { recursive: true });
    await fsp.mkdir(this.real(path), { mode });
  }

  async create(path: string, mode: number, flags: number): Promise<number> {
    await fsp.mkdir(dirname(this.real(path)), { recursive: true });
    return this.keep(await fsp.open(this.real(path), flags | constants.O_CREAT, mode));
  }

  async open(path: string, flags: number): Promise<number> {
    return this.keep(await fsp.open(this.real(path), flags));
  }

  async read(fd: number, length: number, position: number): Promise<Uint8Array> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.handle(fd).read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  }

  async write(fd: number, data: Uint8Array, position: number): Promise<number> {
    return (await this.handle(fd).write(data, 0, data.length, position)).bytesWritten;
  }

  ftruncate(fd: number, size: number): Promise<void> {
    return this.handle(fd).truncate(size);
  }

  truncate(path: string, size: number): Promise<void> {
    return fsp.truncate(this.real(path), size);
  }

  fsync(fd: number): Promise<void> {
    return this.handle(fd).sync();
  }

  async close(fd: number): Promise<void> {
    const handle = this.handle(fd);
    this.files.delete(fd);
    await handle.close();
  }

  unlink(path: string): Promise<void> {
    return fsp.unlink(this.real(path));
  }

  rmdir(path: string): Promise<void> {
    return fsp.rmdir(this.real(path));
  }

  async rename(from: string, to: string): Promise<void> {
    await fsp.mkdir(dirname(this.real(to)), { recursive: true });
    await fsp.rename(this.real(from), this.real(to));
  }

  chmod(path: string, mode: number): Promise<void> {
    return fsp.chmod(this.real(path), mode);
  }

  async symlink(target: string, path: string): Promise<void> {
    await fsp.mkdir(dirname(this.real(path)), { recursive: true });
    await fsp.symlink(target, this.real(path));
  }

  readlink(path: string): Promise<string> {
    return fsp.readlink(this.real(path));
  }

  utimens(path: string, atime: Date, mtime: Date): Promise<void> {
    return fsp.lutimes(this.real(path), atime, mtime);
  }

  async readFile(path: string): Promise<Uint8Array> {
    return fsp.readFile(this.real(path));
  }

  async writeFile(path: string, bytes: Uint8Array, mode: number): Promise<void> {
    await fsp.mkdir(dirname(this.real(path)), { recursive: true });
    await fsp.writeFile(this.real(path), bytes, { mode });
    await fsp.chmod(this.real(path), mode);
  }

  remove(path: string): Promise<void> {
    return fsp.rm(this.real(path), { recursive: true, force: true });
  }

  async directPath(path: string): Promise<string | null> {
    return this.real(path);
  }

  protected keep(handle: fsp.FileHandle): number {
    this.files.set(handle.fd, handle);
    return handle.fd;
  }

  private handle(fd: number): fsp.FileHandle {
    const handle = this.files.get(fd);
    if (!handle) throw Object.assign(new Error(`scratch descriptor ${fd} is not open`), { code: 'EBADF' });
    return handle;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
