/**
 * update_context: add files to, or remove them from, the active files: the files whose full
 * content the model receives each turn. The list is session state, committed with the turn.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { defineTool } from '../define';
import type { PathArg } from '../sandbox';

const PathList = z.array(z.string());

const Input = z
  .strictObject({
    add: PathList.optional().describe('Files to add to the active context (repo-relative paths).'),
    remove: PathList.optional().describe('Files to remove from the active context.'),
  })
  .refine((input) => (input.add?.length ?? 0) + (input.remove?.length ?? 0) > 0, {
    message: 'Pass at least one path in `add` or `remove`.',
  });

export interface UpdateContextOutput {
  active_files: string[];
  added: string[];
  removed: string[];
  /** Paths in `add` that were already active, and paths in `remove` that were not. */
  unchanged: string[];
}

export const updateContextTool = defineTool({
  name: 'update_context',
  description:
    'Add files to or remove files from your active context: the files whose full, current content you receive at every turn. ' +
    'Add several files in one call when you need them; remove files you no longer need to keep the context small.',
  input: Input,
  sideEffects: false,
  paths: (input) => {
    const args: PathArg[] = [];
    input.add?.forEach((path, i) => args.push({ field: `add[${i}]`, path, role: 'read' }));
    input.remove?.forEach((path, i) => args.push({ field: `remove[${i}]`, path, role: 'read' }));
    return args;
  },
  async handler(input, ctx): Promise<UpdateContextOutput> {
    const active = [...ctx.state.activeFiles];
    const out: UpdateContextOutput = { active_files: [], added: [], removed: [], unchanged: [] };
    for (const path of input.add ?? []) {
      const stat = await ctx.vfs.stat(path);
      if (stat === null || stat.type !== 'file') {
        const what = stat === null ? 'does not exist' : `is a ${stat.type}, not a file`;
        const code = stat === null ? 'PATH_NOT_FOUND' : stat.type === 'directory' ? 'PATH_IS_DIRECTORY' : stat.type === 'symlink' ? 'PATH_IS_SYMLINK' : 'PATH_IS_SUBMODULE';
        throw new ForgeError(code, `Cannot add ${path} to the context: it ${what}. Nothing was changed; retry without it.`, {
          data: { path },
        });
      }
      if (active.includes(path)) out.unchanged.push(path);
      else {
        active.push(path);
        out.added.push(path);
      }
    }
    for (const path of input.remove ?? []) {
      const index = active.indexOf(path);
      if (index === -1) out.unchanged.push(path);
      else {
        active.splice(index, 1);
        out.removed.push(path);
      }
    }
    ctx.state.activeFiles = active;
    out.active_files = [...active];
    return out;
  },
});
