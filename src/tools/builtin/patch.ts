/**
 * Patch (spec 003): several operations on one file, located in the original content and applied
 * atomically by the text engine, with clipboards (kept in the session state across calls and
 * turns), reindent and whitespace-tolerant recovery.
 */
import { z } from 'zod';
import { applyPatches, checkPatchSize, patchInputBytes, PATCH_OPERATIONS, type PatchOperation } from '../../text';
import { defineTool } from '../define';
import { applyTextChange, type PatchOutput } from './patch-common';

const PatchOpInput = z.strictObject({
  operation: z
    .enum(PATCH_OPERATIONS as [PatchOperation, ...PatchOperation[]])
    .describe('replace: substitute oldText (must appear exactly once); append_eof / prepend_bof: insert newText at the end / start; overwrite: replace the whole file (creates it if missing; must be the only patch).'),
  oldText: z.string().optional().describe('Text to locate, copied exactly from the file (required for replace).'),
  newText: z.string().optional().describe('Replacement or inserted text. For replace, omitting it deletes oldText.'),
  toClipboard: z.string().optional().describe('replace only: also store the matched text in this named clipboard (cut/copy).'),
  fromClipboard: z.string().optional().describe('Use this clipboard\'s content as newText (paste); newText is then ignored.'),
  reindent: z
    .strictObject({
      strip: z.string().optional().describe('Prefix removed from every non-blank inserted line; each must start with it.'),
      add: z.string().optional().describe('Prefix added to every non-blank inserted line.'),
    })
    .optional()
    .describe('Indentation change applied to the inserted text.'),
});

const Input = z.strictObject({
  path: z.string().describe('File path relative to the repository root.'),
  patches: z.array(PatchOpInput).min(1).describe('Patch operations, all located in the original content and applied together: all or nothing.'),
});

export const patchTool = defineTool({
  name: 'Patch',
  description:
    'Edit one file precisely with one or more patch operations (replace, append_eof, prepend_bof, overwrite). ' +
    'All patches are located in the ORIGINAL content and applied together; if any fails, nothing changes. ' +
    'replace needs oldText to appear exactly once: copy it exactly from the file with enough context to be unique. ' +
    'If it does not match exactly, whitespace drift is recovered when the place is unique (line-end whitespace, shifted indentation, tabs written as spaces, a cut first or last line that newText keeps); ' +
    'newText is then written in the file\'s own indentation and `recoveries` says what was adjusted. ' +
    'To add a final newline, replace the last line with the same line followed by a newline (the reverse removes it). ' +
    'Use toClipboard / fromClipboard to move text without retyping it (clipboards persist across calls), and reindent to change its indentation. ' +
    'Existing files must have been read with read_file first. Returns a unified diff. Keep each call well under 60k tokens; split larger changes.',
  input: Input,
  sideEffects: true,
  paths: (input) => [{ field: 'path', path: input.path, role: 'write' }],
  async handler(input, ctx): Promise<PatchOutput> {
    // REQ-PATCH-008 before touching the file: an oversized call is refused whatever the file holds.
    checkPatchSize(patchInputBytes(input.patches));
    return applyTextChange(ctx, input.path, 'Patch', (original, clipboards) => applyPatches(original, input.patches, clipboards, { path: input.path }));
  },
});
