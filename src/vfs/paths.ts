/** Repo-relative POSIX path handling shared by the views (the tool sandbox is stricter). */
import { ForgeError } from '../errors';

/**
 * Normalizes '' / '.' / './a/' style input and rejects what can never name a tree entry. A "."
 * component means the same wherever it stands ("./a", "a/./b", "a/."), so every one is dropped,
 * as git does for a pathspec; "..", empty components ("a//b"), a leading "/" and NUL are refused.
 */
export function normalizePath(path: string, { allowRoot = false } = {}): string {
  let p = path;
  if (p === '/') p = '';
  if (p.endsWith('/')) p = p.slice(0, -1);
  if (!p.startsWith('/')) p = p.split('/').filter((c) => c !== '.').join('/');
  if (p === '') {
    if (allowRoot) return '';
    throw new ForgeError('PATH_INVALID', 'The path is empty; give a repo-relative file path.', { data: { path } });
  }
  if (p.startsWith('/') || p.split('/').some((c) => c === '' || c === '..') || p.includes('\0')) {
    throw new ForgeError('PATH_INVALID', `"${path}" is not a repo-relative path (no leading "/", no ".." components, no empty components).`, { data: { path } });
  }
  return p;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Ancestors from the top: "a/b/c" -> ["a", "a/b"]. */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

export function isUnder(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir + '/');
}

/**
 * git's path order: UTF-8 byte order, which is code point order. It differs from JavaScript's
 * UTF-16 order only where a surrogate pair (U+10000 and up) meets U+E000..U+FFFF.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const aSurrogate = ca >= 0xd800 && ca <= 0xdfff;
    const bSurrogate = cb >= 0xd800 && cb <= 0xdfff;
    if (aSurrogate !== bSurrogate && (aSurrogate ? cb : ca) >= 0xe000) return aSurrogate ? 1 : -1;
    return ca - cb;
  }
  return a.length - b.length;
}
