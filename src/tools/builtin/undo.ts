/**
 * Undo (spec 000): reverts the session's last applied edit, hash-verified and atomic.
 * Every file is validated before anything changes (sandbox, not a directory, present when the
 * edit left it, current SHA-256 equal to what the edit wrote); then each file gets its pre-edit
 * blob and mode back, or is removed if the edit created it. A failure half-way is rolled back by
 * the registry's recording view, so the view is all-reverted or unchanged (FR-UNDO-11).
 * The pre-edit bytes live in the object store: the entry holds oids and hashes only, so what a
 * session retains grows with the number of files of the last edit, not their size (NFR-UNDO-PERF-03).
 */
import { z } from 'zod';
import { ForgeError, isForgeError } from '../../errors';
import type { UndoFile } from '../../session/state';
import type { ToolContext } from '../context';
import { defineTool } from '../define';
import { forgetSeen } from '../read-tracking';
import { checkPath } from '../sandbox';

/** FR-UNDO-08, verbatim. */
export const NO_EDITS_MESSAGE = 'No edits have been applied to any file with this session.';

export type UndoRefusal = 'hash mismatch' | 'file missing' | 'is a directory' | 'permission denied';

export interface UndoOutput {
  reverted: number;
  paths: string[];
  /** The tool and summary of the edit that was undone. */
  undid: { tool: string; turn: number; summary: string };
  message: string;
}

function refuse(reason: UndoRefusal, file: UndoFile, detail: string): ForgeError {
  return new ForgeError('UNDO_REFUSED', `Undo refused: ${reason}: ${file.path} ${detail}. Nothing was reverted.`, {
    data: { reason, path: file.path },
    hint: reason === 'hash mismatch' ? 'The file changed after the edit; read it and fix it with Edit or Patch instead.' : undefined,
  });
}

async function validate(ctx: ToolContext, file: UndoFile): Promise<void> {
  try {
    await checkPath(ctx.vfs, ctx.config, { field: 'path', path: file.path, role: 'write' });
  } catch (error) {
    if (isForgeError(error)) throw refuse('permission denied', file, `is outside what tools may write (${error.code})`);
    throw error;
  }
  const stat = await ctx.vfs.stat(file.path);
  if (stat?.type === 'directory') throw refuse('is a directory', file, 'is now a directory');
  if (!file.existsAfter) {
    if (stat !== null) throw refuse('hash mismatch', file, 'was deleted by the edit and exists again');
    return;
  }
  if (stat === null) throw refuse('file missing', file, 'no longer exists');
  const hash = await ctx.hashContent(await ctx.vfs.readFile(file.path));
  if (hash !== file.postSha256) throw refuse('hash mismatch', file, 'changed after the edit');
  if (file.postMode !== undefined && stat.mode !== file.postMode) throw refuse('hash mismatch', file, `changed mode after the edit (now ${stat.mode})`);
}

async function restore(ctx: ToolContext, file: UndoFile): Promise<void> {
  if (file.existedBefore) {
    if (file.preOid === undefined) throw new ForgeError('INTERNAL', `The undo entry for ${file.path} lacks its pre-edit object.`);
    await ctx.vfs.writeFile(file.path, await ctx.vfs.readBlob(file.preOid), { mode: file.preMode ?? '100644' });
  } else if (await ctx.vfs.exists(file.path)) {
    await ctx.vfs.deleteFile(file.path);
  }
}

export const undoTool = defineTool({
  name: 'Undo',
  description:
    'Revert the last edit that changed files in this session (all the files of that one call, atomically). ' +
    'It refuses, changing nothing, if any of those files changed after the edit. Only the last edit can be undone, once. ' +
    'After an undo, read a file again before editing it.',
  input: z.strictObject({}),
  sideEffects: true,
  recordsUndo: false,
  async handler(_input, ctx): Promise<UndoOutput> {
    const entry = ctx.state.undo;
    if (entry === null) throw new ForgeError('UNDO_NOTHING_TO_UNDO', NO_EDITS_MESSAGE);
    for (const file of entry.files) await validate(ctx, file);
    for (const file of entry.files) await restore(ctx, file);
    for (const file of entry.files) forgetSeen(ctx.state, file.path);
    ctx.state.undo = null;
    const paths = entry.files.map((f) => f.path);
    return {
      reverted: paths.length,
      paths,
      undid: { tool: entry.tool, turn: entry.turn, summary: entry.summary },
      message: `Reverted ${paths.length} file${paths.length === 1 ? '' : 's'}: ${paths.join(', ')}.`,
    };
  },
});
