/**
 * Tree entry names and modes the way git's fsck judges them (fsck.c `fsck_tree`,
 * path.c `is_ntfs_dotgit`, utf8.c `is_hfs_dotgit`), and git's tree entry order.
 * Pure: shared by tree writing and the tool sandbox, so both refuse the same names.
 */

/** Code points HFS+ ignores when comparing names (utf8.c next_hfs_char). */
const HFS_IGNORABLE = new Set([
  0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e,
  0x206f, 0xfeff,
]);

/** `.git` as HFS+ sees it: case-folded, with ignorable code points dropped. */
export function isHfsDotGit(name: string): boolean {
  let folded = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (HFS_IGNORABLE.has(cp)) continue;
    folded += cp < 128 ? ch.toLowerCase() : ch;
    if (folded.length > 4) return false;
  }
  return folded === '.git';
}

function onlySpacesAndPeriods(rest: string): boolean {
  for (const ch of rest) if (ch !== ' ' && ch !== '.') return false;
  return true;
}

/** `.git` as NTFS sees it: trailing spaces and periods dropped, the 8.3 short name `git~1`, streams after `:`. */
export function isNtfsDotGit(name: string): boolean {
  for (const segment of name.split('\\')) {
    const base = segment.split(':')[0]!;
    const lower = base.toLowerCase();
    if (lower.startsWith('.git') && onlySpacesAndPeriods(base.slice(4))) return true;
    if (lower.startsWith('git~1') && onlySpacesAndPeriods(base.slice(5))) return true;
  }
  return false;
}

export function isDotGitName(name: string): boolean {
  // Fast path: every spelling git flags contains "git" in some letter case (HFS ignorables
  // aside, which are all above U+2000), so most names are cleared by one regex.
  if (!/[gG][iI][tT]/.test(name) && !/[\u200c-\u206f\ufeff]/.test(name)) return false;
  return isHfsDotGit(name) || isNtfsDotGit(name);
}

/** `.<needle>` as HFS+ sees it (utf8.c is_hfs_dot_generic). */
function isHfsDotGeneric(name: string, needle: string): boolean {
  let folded = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (HFS_IGNORABLE.has(cp)) continue;
    folded += cp < 128 ? ch.toLowerCase() : ch;
    if (folded.length > needle.length + 1) return false;
  }
  return folded === `.${needle}`;
}

/** `.<needle>` as NTFS sees it, 8.3 short names included (path.c is_ntfs_dot_generic). */
function isNtfsDotGeneric(name: string, needle: string, shortPrefix: string): boolean {
  const lower = name.toLowerCase();
  if (lower.startsWith(`.${needle}`)) return onlySpacesAndPeriods(name.slice(needle.length + 1).split(':')[0]!);
  if (lower.startsWith(needle.slice(0, 6)) && /^~[1-4]/.test(name.slice(6))) return onlySpacesAndPeriods(name.slice(8).split(':')[0]!);
  // The fall-back short name: up to 6 characters of the hashed prefix, "~", then digits.
  let i = 0;
  let sawTilde = false;
  for (; i < 8; i++) {
    const ch = name[i];
    if (ch === undefined) return false;
    if (sawTilde) {
      if (ch < '0' || ch > '9') return false;
    } else if (ch === '~') {
      i++;
      if (name[i] === undefined || name[i]! < '1' || name[i]! > '9') return false;
      sawTilde = true;
    } else if (i >= 6 || ch.charCodeAt(0) > 0x7f || ch.toLowerCase() !== shortPrefix[i]) {
      return false;
    }
  }
  return onlySpacesAndPeriods(name.slice(i).split(':')[0]!);
}

/** Special files git's fsck refuses (.gitmodules) or warns about (the others) as symlinks (fsck.c fsck_tree). */
const SYMLINK_FORBIDDEN: ReadonlyArray<[needle: string, shortPrefix: string]> = [
  ['gitmodules', 'gi7eba'],
  ['gitignore', 'gi250a'],
  ['gitattributes', 'gi7d29'],
  ['mailmap', 'maba30'],
];

/** `.gitmodules` in any spelling HFS+ or NTFS would open as that file (fsck.c is_hfs_dotgitmodules / is_ntfs_dotgitmodules). */
export function isDotGitmodulesName(name: string): boolean {
  if (isHfsDotGeneric(name, 'gitmodules')) return true;
  return name.split('\\').some((segment) => isNtfsDotGeneric(segment, 'gitmodules', 'gi7eba'));
}

/** Why git's fsck would flag a symlink (mode 120000) of this name, or null. */
export function symlinkNameProblem(name: string): string | null {
  for (const [needle, shortPrefix] of SYMLINK_FORBIDDEN) {
    if (isHfsDotGeneric(name, needle)) return `.${needle} cannot be a symbolic link`;
    for (const segment of name.split('\\')) {
      if (isNtfsDotGeneric(segment, needle, shortPrefix)) return `.${needle} cannot be a symbolic link`;
    }
  }
  return null;
}

export type NameProblem = 'empty' | 'has-slash' | 'has-nul' | 'dot' | 'dotdot' | 'dotgit';

/** Why git's fsck would reject this tree entry name, or null when it is fine. */
export function treeNameProblem(name: string): NameProblem | null {
  if (name.length === 0) return 'empty';
  if (name.includes('/')) return 'has-slash';
  if (name.includes('\0')) return 'has-nul';
  if (name === '.') return 'dot';
  if (name === '..') return 'dotdot';
  if (isDotGitName(name)) return 'dotgit';
  return null;
}

export const TREE_MODES = ['100644', '100755', '120000', '040000', '160000'] as const;
export type TreeMode = (typeof TREE_MODES)[number];

export function isTreeMode(mode: string): mode is TreeMode {
  return (TREE_MODES as readonly string[]).includes(mode);
}

const encoder = new TextEncoder();

/** The bytes git sorts a tree entry by: its UTF-8 name, with `/` appended for a directory. */
export function treeSortKey(entry: { name: string; mode: string }): Uint8Array {
  return encoder.encode(entry.mode === '040000' ? entry.name + '/' : entry.name);
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/**
 * git's tree order: byte order of the UTF-8 names where a directory compares as `name/`
 * (so `a.c` < `a/` < `a0`).
 */
export function compareTreeEntries(a: { name: string; mode: string }, b: { name: string; mode: string }): number {
  return compareBytes(treeSortKey(a), treeSortKey(b));
}
