/**
 * Forge's public API: explicit named exports, layer by layer.
 * Node users pass `nodePlatform` (native zlib and sha1, fast pack reads) to Repository.open;
 * without it the portable WebCrypto/CompressionStream platform is used.
 */
export { ForgeError, isForgeError, toForgeError, ERROR_CODES, type ErrorCode, type ErrorKind, type ForgeErrorOptions } from './errors';

export {
  applySnippetEdit,
  applyLineEdit,
  applyPatches,
  applySearchReplace,
  parseSearchReplaceBlocks,
  analyzeNewlines,
  canonicalize,
  unifiedDiff,
  diffStat,
  type NewlineKind,
  type PatchOp,
  type PatchResult,
  type SnippetEditResult,
  type LineEditResult,
} from './text';

export {
  Repository,
  DEFAULT_IDENTITY,
  ZERO_OID,
  EMPTY_TREE_OID,
  buildTree,
  diffTrees,
  portablePlatform,
  type OpenRepositoryOptions,
  type GitFs,
  type GitPlatform,
  type Commit,
  type Signature,
  type TreeEntry,
  type FileChange,
  type TreeChangeEntry,
} from './git';
export { nodePlatform } from './git/node/platform';

export {
  CommitVfs,
  WorkInProgressVfs,
  FsJournal,
  NullJournal,
  materialize,
  type Vfs,
  type WritableVfs,
  type VfsEntry,
  type VfsStat,
  type PendingChange,
  type FileMode,
  type Journal,
} from './vfs';

export {
  SessionStore,
  Session,
  SessionStateSchema,
  filePatches,
  sessionBranch,
  sessionRef,
  type SessionState,
  type SessionMode,
  type SessionSummary,
  type TurnInfo,
  type TurnCommit,
  type HistoricalSession,
  type CreateSessionOptions,
  type ResumeOptions,
  type CommitTurnOptions,
  type FilePatch,
} from './session';

export {
  mergeSession,
  mergeBranches,
  planMerge,
  applyMerge,
  rebaseSession,
  sessionDiff,
  mergeTrees,
  writeMergedTree,
  mergeLines,
  mergeBases,
  type MergeOptions,
  type MergePlan,
  type MergeResult,
  type MergeStatus,
  type MergeConflict,
  type ConflictKind,
  type ConflictHunk,
  type RebaseOptions,
  type RebaseResult,
  type SessionDiff,
  type WorktreeSync,
} from './branches';
export { nodeWorktreeSync } from './branches/node/worktree-sync';

export {
  ToolRegistry,
  createToolRegistry,
  createToolContext,
  exportToolSchemas,
  allowAll,
  allowList,
  allowReadOnly,
  denyAll,
  BUILTIN_TOOLS,
  type ToolResult,
  type ToolContext,
  type ToolsConfig,
  type ApprovalPolicy,
  type AnyToolDefinition,
} from './tools';

export { SessionToolRunner, type ToolCallInput, type ToolCallOptions } from './agent/tool-calls';
export {
  Agent,
  DEFAULT_LIMITS,
  runTurns,
  planScript,
  planTask,
  buildContext,
  SummaryCache,
  ModelSummarizer,
  deterministicSummarizer,
  createProvider,
  OpenAiProvider,
  AnthropicProvider,
  ScriptedProvider,
  parseScript,
  type AgentOptions,
  type AgentLimits,
  type AgentEvent,
  type TurnOutcome,
  type Provider,
  type ChatRequest,
  type ChatResponse,
  type ChatMessage,
  type Usage,
  type Script,
} from './agent';
export { createRunCommandTool, type RunCommandOptions } from './agent/node/run-command';
