/**
 * write_file: create a file or replace its whole content; parent directories are created. An
 * existing file must have been read first and be unchanged since, like any edit.
 */
import { z } from 'zod';
import { defineTool } from '../define';
import { checkForReplace, writeSeen } from '../file-access';
import { encodeText } from '../text-io';

const Input = z.strictObject({
  path: z.string().describe('File path relative to the repository root, e.g. "src/util/math.ts". Missing parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

export interface WriteFileOutput {
  path: string;
  created: boolean;
  bytes: number;
  file_hash: string;
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create a file, or replace the entire content of an existing one, with `content`. Missing parent directories are created. ' +
    'To replace an existing file you must have read it with read_file, and it must not have changed since. ' +
    'For changes to part of a file, prefer Edit or Patch.',
  input: Input,
  sideEffects: true,
  idempotent: true,
  utf8Args: ['content'],
  paths: (input) => [{ field: 'path', path: input.path, role: 'write' }],
  async handler(input, ctx): Promise<WriteFileOutput> {
    const existing = await checkForReplace(ctx, input.path, 'write_file');
    // A huge content from `forge turn` arrives as bytes and is written as it is.
    const bytes = ctx.utf8Args?.get('content') ?? encodeText(input.content);
    const hash = await writeSeen(ctx, input.path, bytes);
    return { path: input.path, created: existing === null, bytes: bytes.length, file_hash: hash };
  },
});
