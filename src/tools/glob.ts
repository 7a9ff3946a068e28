/**
 * Glob filters for list_files and search, in gitignore syntax (the `ignore` package, which runs
 * in a browser too): `*.ts` matches at any depth, `src/**\/*.test.ts` is anchored at the root,
 * `docs/` matches everything below docs.
 */
import ignore from 'ignore';
import { ForgeError } from '../errors';

export function globFilter(glob: string | undefined, field = 'glob'): (path: string) => boolean {
  if (glob === undefined) return () => true;
  try {
    const matcher = ignore().add(glob);
    // Compile now, so a broken pattern is reported as bad input rather than mid-walk.
    matcher.ignores('probe');
    return (path) => matcher.ignores(path);
  } catch (error) {
    throw new ForgeError('TOOL_INPUT_INVALID', `\`${field}\` ${JSON.stringify(glob)} is not a valid glob: ${error instanceof Error ? error.message : String(error)}. Use a pattern like "*.ts" or "src/**/*.test.ts".`, {
      data: { issues: [{ field, message: 'not a valid glob' }] },
    });
  }
}

/** A directory argument: absent, '' and '.' mean the repository root. */
export function dirArg(path: string | undefined): string {
  return path === undefined || path === '.' ? '' : path;
}
