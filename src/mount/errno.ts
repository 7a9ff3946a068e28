/**
 * What a file-system operation answers when it fails: a POSIX errno name. The binding adapter
 * turns the name into the platform's number (Linux and macOS differ), so the core stays portable.
 */
import { ForgeError, isForgeError } from '../errors';

export type Errno =
  | 'EPERM' | 'ENOENT' | 'EIO' | 'EBADF' | 'EACCES' | 'EBUSY' | 'EEXIST' | 'EXDEV' | 'ENOTDIR' | 'EISDIR'
  | 'EINVAL' | 'ENOSPC' | 'EROFS' | 'ENAMETOOLONG' | 'ENOTEMPTY' | 'ELOOP' | 'ENODATA' | 'ENOTSUP' | 'ESTALE';

const ERRNO_NAMES: ReadonlySet<string> = new Set<Errno>([
  'EPERM', 'ENOENT', 'EIO', 'EBADF', 'EACCES', 'EBUSY', 'EEXIST', 'EXDEV', 'ENOTDIR', 'EISDIR',
  'EINVAL', 'ENOSPC', 'EROFS', 'ENAMETOOLONG', 'ENOTEMPTY', 'ELOOP', 'ENODATA', 'ENOTSUP', 'ESTALE',
]);

/** A refused operation: the kernel gets `errno`, the process that made the call sees it as its error. */
export function fsError(errno: Errno, message: string): ForgeError {
  return new ForgeError('MOUNT_OP_REFUSED', message, { data: { errno } });
}

/** Forge codes an operation can meet, as the errno a program expects for them. */
const BY_CODE: Readonly<Record<string, Errno>> = {
  PATH_NOT_FOUND: 'ENOENT',
  PATH_NOT_DIRECTORY: 'ENOTDIR',
  PATH_IS_DIRECTORY: 'EISDIR',
  PATH_INVALID: 'EINVAL',
  DISK_FULL: 'ENOSPC',
  READ_ONLY_FS: 'EROFS',
  PERMISSION_DENIED: 'EACCES',
  SESSION_BUSY: 'EBUSY',
  PENDING_DISCARDED: 'ESTALE',
  READ_ONLY_VIEW: 'EROFS',
};

/** The errno for any error an operation threw; `unexpected` is true for EIO from a bug or an unknown failure. */
export function errnoOf(error: unknown): { errno: Errno; unexpected: boolean } {
  if (isForgeError(error)) {
    if (error.code === 'MOUNT_OP_REFUSED') return { errno: error.data.errno as Errno, unexpected: false };
    const mapped = BY_CODE[error.code];
    if (mapped) return { errno: mapped, unexpected: false };
    return { errno: 'EIO', unexpected: true };
  }
  // An errno from the scratch directory's real file system passes through as it is.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && ERRNO_NAMES.has(code)) return { errno: code as Errno, unexpected: false };
  if (code === 'EDQUOT') return { errno: 'ENOSPC', unexpected: false };
  return { errno: 'EIO', unexpected: true };
}
