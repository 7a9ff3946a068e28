/**
 * Output schemas of the built-in tools, for MCP's `outputSchema` / `structuredContent`.
 * Each one mirrors the output type its tool's handler declares, and the compiler holds them
 * together: `exact<Schema, Output>()` fails to type-check when a field is added, removed,
 * renamed or retyped on either side, so a schema can lag its tool only in a build that fails.
 * A tool without an entry here (a new tool) is listed without an output schema: none rather
 * than a wrong one.
 */
import { z } from 'zod';
import type { DeleteFileOutput } from '../tools/builtin/delete-file';
import type { EditResponse } from '../tools/builtin/edit';
import type { ListActiveFilesOutput } from '../tools/builtin/list-active-files';
import type { ListFilesOutput } from '../tools/builtin/list-files';
import type { PatchOutput } from '../tools/builtin/patch-common';
import type { ReadFileOutput } from '../tools/builtin/read-file';
import type { RequestModeUpgradeOutput } from '../tools/builtin/request-mode-upgrade';
import type { SearchOutput } from '../tools/builtin/search';
import type { UndoOutput } from '../tools/builtin/undo';
import type { UpdateContextOutput } from '../tools/builtin/update-context';
import type { WriteFileOutput } from '../tools/builtin/write-file';

/** True only when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Returns the schema; its argument type is `never` unless the schema's output is exactly O. */
export function exact<O>() {
  return <S extends z.ZodObject>(schema: S & (Same<z.output<S>, O> extends true ? unknown : never)): S => schema;
}

const count = z.number().int().nonnegative();
const lineNumber = z.number().int().positive();
const newlineKind = z.enum(['LF', 'CRLF', 'CR']);

export const ReadFileOutputSchema = exact<ReadFileOutput>()(
  z.strictObject({
    path: z.string(),
    file_hash: z.string(),
    type: z.enum(['file', 'symlink']),
    content: z.string().optional(),
    total_lines: count.optional(),
    start_line: lineNumber.optional(),
    end_line: lineNumber.optional(),
    next_start_line: lineNumber.optional(),
    binary: z.boolean().optional(),
    size: count.optional(),
    symlink_target: z.string().optional(),
    has_bom: z.boolean().optional(),
    message: z.string().optional(),
  }),
);

export const ListFilesOutputSchema = exact<ListFilesOutput>()(
  z.strictObject({
    path: z.string(),
    entries: z.array(z.strictObject({ path: z.string(), type: z.enum(['file', 'symlink', 'submodule']) })),
    total: count,
    truncated: z.boolean(),
  }),
);

export const SearchOutputSchema = exact<SearchOutput>()(
  z.strictObject({
    pattern: z.string(),
    matches: z.array(z.strictObject({ path: z.string(), line: lineNumber, text: z.string() })),
    files_searched: count,
    files_with_matches: count,
    truncated: z.boolean(),
    skipped: z.strictObject({ binary: count, too_large: count }),
  }),
);

/** Which level of the Edit/Patch recovery ladder placed an old text (src/text/fuzzy-match.ts). */
const recoveryLevel = z.enum(['exact_after_indentation', 'line_end_whitespace', 'indentation_shift', 'tabs_spaces', 'boundary_lines']);

export const EditOutputSchema = exact<EditResponse>()(
  z.strictObject({
    action: z.enum(['apply_snippet_edit', 'apply_line_edit']),
    status: z.enum(['ok', 'no_match', 'stale_file', 'error']),
    message: z.string(),
    current_file_hash: z.string().nullable(),
    newline_kind: newlineKind.nullable(),
    region_id: z.string().optional(),
    start_line: z.number().int().optional(),
    end_line: z.number().int().optional(),
    diff: z.string().optional(),
    candidates: z.unknown().optional(),
    recovery: z.strictObject({ level: recoveryLevel, adjusted: z.array(z.string()) }).optional(),
  }),
);

/** Patch and search_replace. */
export const PatchOutputSchema = exact<PatchOutput>()(
  z.strictObject({
    path: z.string(),
    created: z.boolean(),
    changed: z.boolean(),
    message: z.string(),
    diff: z.string(),
    file_hash: z.string(),
    newline_kind: newlineKind,
    notes: z.array(z.string()),
    warnings: z.array(z.string()),
    recoveries: z.array(
      z.strictObject({ patch: z.number().int().min(1), level: recoveryLevel, start_line: z.number().int(), end_line: z.number().int(), adjusted: z.array(z.string()) }),
    ),
  }),
);

export const WriteFileOutputSchema = exact<WriteFileOutput>()(
  z.strictObject({ path: z.string(), created: z.boolean(), bytes: count, file_hash: z.string() }),
);

export const DeleteFileOutputSchema = exact<DeleteFileOutput>()(z.strictObject({ path: z.string(), deleted: z.literal(true) }));

export const UpdateContextOutputSchema = exact<UpdateContextOutput>()(
  z.strictObject({ active_files: z.array(z.string()), added: z.array(z.string()), removed: z.array(z.string()), unchanged: z.array(z.string()) }),
);

export const ListActiveFilesOutputSchema = exact<ListActiveFilesOutput>()(
  z.strictObject({ active_files: z.array(z.strictObject({ path: z.string(), exists: z.boolean() })) }),
);

export const RequestModeUpgradeOutputSchema = exact<RequestModeUpgradeOutput>()(
  z.strictObject({ mode: z.literal('unrestricted'), changed: z.boolean(), message: z.string() }),
);

export const UndoOutputSchema = exact<UndoOutput>()(
  z.strictObject({
    reverted: count,
    paths: z.array(z.string()),
    undid: z.strictObject({ tool: z.string(), turn: count, summary: z.string() }),
    message: z.string(),
  }),
);

/** By canonical tool name. */
export const OUTPUT_SCHEMAS: Readonly<Record<string, z.ZodObject>> = {
  read_file: ReadFileOutputSchema,
  list_files: ListFilesOutputSchema,
  search: SearchOutputSchema,
  Edit: EditOutputSchema,
  Patch: PatchOutputSchema,
  search_replace: PatchOutputSchema,
  write_file: WriteFileOutputSchema,
  delete_file: DeleteFileOutputSchema,
  update_context: UpdateContextOutputSchema,
  list_active_files: ListActiveFilesOutputSchema,
  request_mode_upgrade: RequestModeUpgradeOutputSchema,
  Undo: UndoOutputSchema,
};
