/**
 * list_files: the files below a directory (recursively), optionally filtered by a glob. Paths
 * under .forge/ and denied paths (secrets) are never listed.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { defineTool } from '../define';
import { dirArg, globFilter } from '../glob';
import { isVisiblePath } from '../sandbox';
import type { VfsEntry } from '../../vfs/types';

const Input = z.strictObject({
  path: z.string().optional().describe('Directory to list, relative to the repository root. Default: the whole repository.'),
  glob: z.string().min(1).optional().describe('Only paths matching this gitignore-style pattern, matched against repo-relative paths: "*.ts" (any depth), "src/**/*.test.ts", "docs/".'),
});

export interface ListFilesOutput {
  path: string;
  entries: Array<{ path: string; type: 'file' | 'symlink' | 'submodule' }>;
  /** How many entries matched before the limit applied. */
  total: number;
  truncated: boolean;
}

export const listFilesTool = defineTool({
  name: 'list_files',
  description:
    'List the files below a directory of the workspace (recursively), as repo-relative paths with their type (file, symlink, submodule). ' +
    'Optionally filter with a gitignore-style glob. Large listings are cut to a limit; narrow them with path or glob.',
  input: Input,
  sideEffects: false,
  paths: (input) => [{ field: 'path', path: input.path ?? '', role: 'dir' }],
  async handler(input, ctx): Promise<ListFilesOutput> {
    const dir = dirArg(input.path);
    const matches = globFilter(input.glob);
    const stat = await ctx.vfs.stat(dir);
    if (stat === null) {
      throw new ForgeError('PATH_NOT_FOUND', `No directory at ${dir}. Call list_files without a path to see the whole repository.`, { data: { path: dir } });
    }
    const all: VfsEntry[] = stat.type === 'directory' ? await ctx.vfs.walk(dir) : [stat];
    const visible = all.filter((e) => e.type !== 'directory' && isVisiblePath(e.path, ctx.config) && matches(e.path));
    const limit = ctx.config.list_files.max_entries;
    return {
      path: dir,
      entries: visible.slice(0, limit).map((e) => ({ path: e.path, type: e.type as 'file' | 'symlink' | 'submodule' })),
      total: visible.length,
      truncated: visible.length > limit,
    };
  },
});
