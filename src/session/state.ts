/**
 * The session state stored as `.forge/sessions/<id>.json` in the session's own tree and
 * committed with every turn: the conversation, the tool calls of that turn, and everything a
 * tool needs to behave the same in a later process (read hashes, clipboards, the undo entry,
 * the mode). Versioned: a reader refuses a version it does not know instead of misreading it.
 *
 * Version 2: `toolCalls` holds the records of the commit's own turn only (in memory and in the
 * journal, also the turn in progress); an earlier turn's records are in that turn's commit. So
 * a turn writes O(turn) records, not every call of the session again (version 1 held them all,
 * and is still read: its readers filter by turn too).
 */
import { z } from 'zod';

export const SESSION_STATE_VERSION = 2;
/** The versions this engine reads (it writes SESSION_STATE_VERSION). */
export const READABLE_STATE_VERSIONS: readonly number[] = [1, 2];

export const ToolCallSchema = z.strictObject({
  id: z.string(),
  tool: z.string(),
  args: z.unknown(),
});

export const MessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string(),
  /** Assistant messages: the tool calls the model made. */
  toolCalls: z.array(ToolCallSchema).optional(),
  /** Tool messages: which call this is the result of. */
  toolCallId: z.string().optional(),
  /** Tool messages: the result is an error (the call failed, or was not run). */
  isError: z.boolean().optional(),
  /** Assistant messages written by a model: the tokens that response cost, as the provider counted them. */
  usage: z.strictObject({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }).optional(),
  turn: z.number().int().nonnegative(),
  at: z.string(),
});

export const ToolCallRecordSchema = z.strictObject({
  id: z.string(),
  turn: z.number().int().nonnegative(),
  tool: z.string(),
  args: z.unknown(),
  ok: z.boolean(),
  output: z.unknown().optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  at: z.string(),
});

export const UndoFileSchema = z.strictObject({
  /** Canonical repo-relative path. */
  path: z.string(),
  existedBefore: z.boolean(),
  /** Pre-edit blob (kept in the object store, so the entry's size does not grow with file size). */
  preOid: z.string().optional(),
  preMode: z.enum(['100644', '100755', '120000']).optional(),
  /** The edit left a file there (false: the edit deleted it). */
  existsAfter: z.boolean(),
  /** SHA-256 hex of the post-edit bytes, when existsAfter. */
  postSha256: z.string().optional(),
  postMode: z.enum(['100644', '100755', '120000']).optional(),
});

export const UndoEntrySchema = z.strictObject({
  tool: z.string(),
  turn: z.number().int().nonnegative(),
  summary: z.string(),
  files: z.array(UndoFileSchema).min(1),
});

export const SessionModeSchema = z.enum(['restricted', 'unrestricted']);

export const SessionStateSchema = z.strictObject({
  version: z.union([z.literal(1), z.literal(SESSION_STATE_VERSION)]),
  id: z.string(),
  branch: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Where the session started: the ref the caller named (if any) and the commit it resolved to. */
  base: z.strictObject({ ref: z.string().optional(), commit: z.string() }),
  /** Set when the session was resumed from another session's historical commit. */
  parent: z.strictObject({ session: z.string(), commit: z.string(), turn: z.number().int().nonnegative() }).optional(),
  model: z.strictObject({ provider: z.string(), model: z.string().optional() }).optional(),
  mode: SessionModeSchema,
  /** Number of turns committed on this branch (the turn in progress is turn + 1). */
  turn: z.number().int().nonnegative(),
  messages: z.array(MessageSchema),
  /** The tool calls of turn `turn` (and of the turn in progress); see the version note above. */
  toolCalls: z.array(ToolCallRecordSchema),
  activeFiles: z.array(z.string()),
  /** SHA-256 hex of each file's content when the model last read it or edited it successfully. */
  readHashes: z.record(z.string(), z.string()),
  clipboards: z.record(z.string(), z.string()),
  undo: UndoEntrySchema.nullable(),
});

export type ToolCall = z.infer<typeof ToolCallSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;
export type UndoFile = z.infer<typeof UndoFileSchema>;
export type UndoEntry = z.infer<typeof UndoEntrySchema>;
export type SessionMode = z.infer<typeof SessionModeSchema>;
export type SessionState = z.infer<typeof SessionStateSchema>;
