/** What getattr answers (the adapter adds owner and times the core does not track). */
export interface FileAttr {
  /** Full st_mode: type bits and permissions. */
  mode: number;
  size: number;
  mtime: Date;
}

export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;
export const S_IFMT = 0o170000;

export function isDirAttr(attr: FileAttr): boolean {
  return (attr.mode & S_IFMT) === S_IFDIR;
}
