/**
 * Which paths a mounted session shows. The rules are the tool sandbox's (one mechanism): `.git`
 * in every spelling git refuses, `.forge/` at the top and denied paths (secrets) are neither
 * visible nor creatable, exactly as tools cannot read or write them.
 */
import { isDeniedPath, isGitDirName, isReservedName, type ToolsConfig } from '../tools';
import { fsError } from './errno';

/** '/a/b' (what FUSE passes) as the view's 'a/b'; '/' is ''. */
export function repoPathOf(fusePath: string): string {
  return fusePath.replace(/^\/+/, '').replace(/\/+$/, '');
}

export function isHiddenPath(path: string, config: ToolsConfig): boolean {
  if (path === '') return false;
  const components = path.split('/');
  if (components.some(isGitDirName)) return true;
  if (isReservedName(components[0]!)) return true;
  return isDeniedPath(path, config);
}

/** For lookups: a hidden path does not exist. */
export function assertVisible(path: string, config: ToolsConfig): void {
  if (isHiddenPath(path, config)) throw fsError('ENOENT', `"${path}" is not part of the mounted view.`);
}

/** For creation: a hidden path cannot be made. */
export function assertCreatable(path: string, config: ToolsConfig): void {
  if (isHiddenPath(path, config)) throw fsError('EPERM', `"${path}" is reserved (.git, .forge/ or a denied path) and cannot be created in a mounted session.`);
}
