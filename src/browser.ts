/**
 * `forge-engine/browser`: the public API without the Node adapters (no `nodePlatform`, no
 * `nodeWorktreeSync`, no `run_command`), for browsers and other runtimes without node:* modules
 * or Buffer. Repository.open uses the portable WebCrypto/CompressionStream platform; pass an fs
 * with the promise API, e.g. @isomorphic-git/lightning-fs over IndexedDB. Its import graph holds
 * no node:* module and no Node global (scripts/check-browser.mjs, run by the tests). The export
 * root entry is this API plus what needs Node (src/index.ts; a test compares the two).
 * Repository tools are here (discovery, approval, the registry), but not their sandbox:
 * QuickJsSandbox is `forge-engine/browser/repo-tools` (src/browser-repo-tools.ts), so an app that
 * never runs a repository tool has no QuickJS import in its graph, and a bundler such as vite
 * emits no 503 KB .wasm for it. Nothing here imports src/tools/repo/index.ts, which re-exports it.
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
  locateOldText,
  LineIndex,
  unifiedDiff,
  diffStat,
  type NewlineKind,
  type PatchOp,
  type PatchResult,
  type SnippetEditResult,
  type LineEditResult,
  type PatchRecovery,
  type RecoveryLevel,
  type RecoveryReport,
} from './text';

export {
  Repository,
  DEFAULT_IDENTITY,
  ZERO_OID,
  EMPTY_TREE_OID,
  buildTree,
  diffTrees,
  portablePlatform,
  asGitFs,
  type OpenRepositoryOptions,
  type GitFs,
  type GitFsInput,
  type GitPlatform,
  type Commit,
  type Signature,
  type TreeEntry,
  type FileChange,
  type TreeChangeEntry,
} from './git';
export { mkdirp, createExclusive } from './git';

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

export { RepoTools, registryWithRepoTools, type RepoToolsOptions } from './tools/repo/repo-tools';
export { approveRepoTool, type ApproveOptions, type ApproveResult } from './tools/repo/approve';
export { listTools, diffTool } from './tools/repo/report';
export { DEFAULT_REPO_TOOL_LIMITS, type RepoToolLimits } from './tools/repo/limits';
export { APPROVALS_PATH } from './tools/repo/approvals';
export type { RepoToolStatus } from './tools/repo/discover';
export type { WasmSandbox, SandboxVfs } from './tools/repo/wasm-sandbox';
export { LocalToolTrust, TRUST_FILE, type ToolTrust, type TrustEntry } from './tools/repo/trust';

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
