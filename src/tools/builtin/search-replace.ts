/**
 * search_replace: the legacy SEARCH/REPLACE block form, one or more blocks for one file, parsed
 * and applied by the same engine as Patch (same matching, recovery and atomicity).
 */
import { z } from 'zod';
import { applyPatches, checkPatchSize, parseSearchReplaceBlocks, utf8Length } from '../../text';
import { defineTool } from '../define';
import { applyTextChange, type PatchOutput } from './patch-common';

const Input = z.strictObject({
  path: z.string().describe('File path relative to the repository root.'),
  blocks: z
    .string()
    .min(1)
    .describe('One or more blocks, each: a line "<<<<<<< SEARCH", the exact old lines, a line "=======", the new lines, a line ">>>>>>> REPLACE".'),
});

export const searchReplaceTool = defineTool({
  name: 'search_replace',
  description:
    'Edit one file with SEARCH/REPLACE blocks:\n<<<<<<< SEARCH\nexact old lines\n=======\nnew lines\n>>>>>>> REPLACE\n' +
    'Each SEARCH section must appear exactly once in the file (copy it exactly, with enough context to be unique). ' +
    'All blocks are applied together or not at all. An empty SEARCH section appends to the file (creating it if missing). ' +
    'Whitespace drift in a SEARCH section is recovered as in Patch when the place is unique. Sections always end with a newline, so blocks cannot add or remove a final newline: use Patch or Edit for that. ' +
    'Existing files must have been read with read_file first. Returns a unified diff.',
  input: Input,
  sideEffects: true,
  paths: (input) => [{ field: 'path', path: input.path, role: 'write' }],
  async handler(input, ctx): Promise<PatchOutput> {
    // Size and block syntax are input problems: report them before looking at the file.
    checkPatchSize(utf8Length(input.blocks));
    const operations = parseSearchReplaceBlocks(input.blocks);
    return applyTextChange(ctx, input.path, 'search_replace', (original, clipboards) =>
      applyPatches(original, operations, clipboards, { path: input.path, itemName: 'block' }),
    );
  },
});
