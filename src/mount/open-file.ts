/**
 * A tracked file while something has it open: its bytes are loaded on the first read or write
 * and every write lands here, shared by all handles of the file (as one inode's page cache), until
 * a flush (close), fsync or release makes them ONE edit of the pending layer.
 */
import type { FileMode } from '../vfs/types';

export class OpenFile {
  private bytes: Uint8Array | null = null;
  private length = 0;
  /** The bytes are the repository's cached blob (shared, read-only): copied before the first change. */
  private shared = false;
  /** Changed since the last flush. */
  dirty = false;
  /** The pending layer has the file (false for a file created and not yet flushed). */
  inView: boolean;
  /** Unlinked while open: its handles keep reading and writing it, nothing reaches the view. */
  detached = false;
  handles = 0;
  mtime: Date;

  constructor(
    public path: string,
    public mode: FileMode,
    inView: boolean,
    now: Date,
  ) {
    this.inView = inView;
    this.mtime = now;
  }

  get loaded(): boolean {
    return this.bytes !== null;
  }

  get size(): number {
    return this.length;
  }

  /** Starts from these bytes (the view's content, or empty for a new or truncated file). */
  load(bytes: Uint8Array, shared: boolean): void {
    this.bytes = bytes;
    this.length = bytes.length;
    this.shared = shared;
  }

  content(): Uint8Array {
    return this.bytes === null ? new Uint8Array(0) : this.bytes.subarray(0, this.length);
  }

  read(length: number, position: number): Uint8Array {
    if (position >= this.length) return new Uint8Array(0);
    return this.bytes!.subarray(position, Math.min(this.length, position + length));
  }

  write(data: Uint8Array, position: number, now: Date): void {
    this.resize(Math.max(this.length, position + data.length));
    this.bytes!.set(data, position);
    this.dirty = true;
    this.mtime = now;
  }

  truncate(size: number, now: Date): void {
    this.resize(size);
    this.dirty = true;
    this.mtime = now;
  }

  /** Grows by doubling (sequential writes stay linear), zero-filled as POSIX requires. */
  private resize(size: number): void {
    if (this.shared && this.bytes !== null) this.bytes = this.bytes.slice(0, this.length);
    this.shared = false;
    const bytes = this.bytes ?? new Uint8Array(0);
    if (size > bytes.length) {
      const grown = new Uint8Array(Math.max(size, Math.min(bytes.length * 2, size + (64 << 20))));
      grown.set(bytes.subarray(0, this.length));
      this.bytes = grown;
    } else {
      if (size < this.length) bytes.fill(0, size, this.length);
      this.bytes = bytes;
    }
    this.length = size;
  }
}
