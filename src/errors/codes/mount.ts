/** Codes of `forge mount`: the session as a live FUSE directory. */
export const MOUNT_CODES = {
  MOUNT_UNAVAILABLE: { kind: 'unsupported', summary: 'FUSE cannot be used here: no /dev/fuse, no libfuse, or the optional fuse-native binding is not installed.' },
  MOUNT_POINT_INVALID: { kind: 'user', summary: 'The mount point is not an empty directory this process can mount on.' },
  MOUNT_POINT_BUSY: { kind: 'conflict', summary: 'Something live is already mounted at the mount point.' },
  MOUNT_OP_REFUSED: { kind: 'user', summary: 'A file-system operation in a mounted session was refused; data.errno is what the calling program saw.' },
  MOUNT_FAILED: { kind: 'internal', summary: 'libfuse refused to mount or unmount the directory.' },
} as const;
