/** list_active_files: the files currently in the model's active context. */
import { z } from 'zod';
import { defineTool } from '../define';

export interface ListActiveFilesOutput {
  /** `exists: false` when an active file was deleted since it was added. */
  active_files: Array<{ path: string; exists: boolean }>;
}

export const listActiveFilesTool = defineTool({
  name: 'list_active_files',
  description: 'List the files in your active context (their full content is included at every turn). Change the list with update_context.',
  input: z.strictObject({}),
  sideEffects: false,
  async handler(_input, ctx): Promise<ListActiveFilesOutput> {
    const files: ListActiveFilesOutput['active_files'] = [];
    for (const path of ctx.state.activeFiles) files.push({ path, exists: (await ctx.vfs.stat(path))?.type === 'file' });
    return { active_files: files };
  },
});
