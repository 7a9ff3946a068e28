/**
 * delete_file: remove one file (or symlink). Deleting a file that was never read is allowed (the
 * model may know it only from a listing), but one that changed since it was read is refused.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { defineTool } from '../define';
import { loadFile, notFound } from '../file-access';
import { forgetSeen } from '../read-tracking';

const Input = z.strictObject({
  path: z.string().describe('File path relative to the repository root.'),
});

export interface DeleteFileOutput {
  path: string;
  deleted: true;
}

export const deleteFileTool = defineTool({
  name: 'delete_file',
  description:
    'Delete one file from the workspace. Directories are not deleted directly: they disappear when their last file is deleted. ' +
    'If you read the file earlier and it changed since, the delete is refused; read it again first.',
  input: Input,
  sideEffects: true,
  idempotent: true,
  paths: (input) => [{ field: 'path', path: input.path, role: 'delete' }],
  async handler(input, ctx): Promise<DeleteFileOutput> {
    const file = await loadFile(ctx, input.path);
    if (file === null) throw notFound(input.path);
    const seen = ctx.state.readHashes[input.path];
    if (seen !== undefined && seen !== file.hash) {
      throw new ForgeError('STALE_FILE', `${input.path} changed since you last read it. Read it again with read_file before deleting it.`, {
        data: { path: input.path, current_file_hash: file.hash },
      });
    }
    await ctx.vfs.deleteFile(input.path);
    forgetSeen(ctx.state, input.path);
    ctx.state.activeFiles = ctx.state.activeFiles.filter((p) => p !== input.path);
    return { path: input.path, deleted: true };
  },
});
