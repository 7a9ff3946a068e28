/**
 * The agent layer: running tool calls against a session, the turn loop, context building with
 * cached file summaries, and the providers. Browser-safe; the Node-only run_command tool lives
 * in ./node/run-command.
 */
export { SessionToolRunner, type ToolCallInput, type ToolCallOptions } from './tool-calls';
export { Agent, conversationOf, DEFAULT_LIMITS, type AgentLimits, type AgentOptions, type TurnOutcome, type TurnStatus } from './loop';
export { runTurns, planScript, planTask, type RunPlan, type RunResult, type RunOptions } from './run';
export type { AgentEvent, EventSink, RunStatus } from './events';
export { buildContext, languageOf, formatSize, DEFAULT_CONTEXT_TOKENS, DEFAULT_INSTRUCTIONS, type BuiltContext, type ContextInput, type ContextReport } from './context';
export {
  SummaryCache,
  ModelSummarizer,
  deterministicSummarizer,
  deterministicSummary,
  leadingDoc,
  exportedNames,
  type FileSummarizer,
  type FileSummary,
  type FileToSummarize,
  type SummaryCacheOptions,
} from './summaries';
export { modelCommitMessage, cleanCommitMessage, type CommitMessageInput } from './commit-message';
export { toolResultContent, resultLine, argsLine, diffStatOf, formatDiffStat, type DiffStatEntry } from './report';
export * from './providers';
