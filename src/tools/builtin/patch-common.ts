/**
 * The shared body of Patch and search_replace: load the file (with the stale checks), let the
 * text engine compute the new text, write it, and answer with a unified diff, the engine's notes
 * for the model and its warnings (a generated file is still changed, with a warning).
 */
import { unifiedDiff, type NewlineKind, type PatchResult, type RecoveryLevel } from '../../text';
import type { ToolContext } from '../context';
import { loadForChange, writeSeen } from '../file-access';
import { decodeTextOrThrow, encodeText } from '../text-io';

export interface PatchOutput {
  path: string;
  created: boolean;
  changed: boolean;
  message: string;
  /** Unified diff of the change ('' when the content did not change). */
  diff: string;
  file_hash: string;
  newline_kind: NewlineKind;
  notes: string[];
  warnings: string[];
  /** The replaces whose oldText did not match exactly and were placed by the recovery ladder. */
  recoveries: PatchRecoveryOutput[];
}

export interface PatchRecoveryOutput {
  /** 1-based number of the patch (or block). */
  patch: number;
  level: RecoveryLevel;
  /** 1-based lines of the original that were replaced. */
  start_line: number;
  end_line: number;
  adjusted: string[];
}

export async function applyTextChange(
  ctx: ToolContext,
  path: string,
  toolName: string,
  compute: (original: string | null, clipboards: Record<string, string>) => PatchResult,
): Promise<PatchOutput> {
  const file = await loadForChange(ctx, path, toolName);
  const original = file === null ? null : decodeTextOrThrow(file.bytes, path, toolName);
  const result = compute(original, ctx.state.clipboards);
  ctx.state.clipboards = result.clipboards;
  const recoveries = result.recoveries.map((r) => ({ patch: r.patch, level: r.level, start_line: r.startLine, end_line: r.endLine, adjusted: r.adjusted }));
  const common = { path, created: file === null, newline_kind: result.newlineKind, notes: result.notes, warnings: result.warnings, recoveries };
  if (file !== null && result.text === original) {
    return { ...common, changed: false, message: `${path} already has this content; nothing was written.`, diff: '', file_hash: file.hash };
  }
  const hash = await writeSeen(ctx, path, encodeText(result.text));
  const message = file === null ? `Created ${path}.` : `Updated ${path}.`;
  return { ...common, changed: true, message, diff: unifiedDiff(path, original, result.text), file_hash: hash };
}
