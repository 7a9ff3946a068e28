/** The tool layer: registry, built-in tools, sandbox, modes, approval, read tracking, schema export. */
import { BUILTIN_TOOLS } from './builtin';
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig } from './config';
import { ToolRegistry, type ToolSchemas } from './registry';

export { ToolRegistry, type ToolError, type ToolResult, type ToolSchemas } from './registry';
export { defineTool, type AnyToolDefinition, type ToolDefinition } from './define';
export { createToolContext, newToolState, type ToolContext, type ToolContextOptions, type ToolState } from './context';
export { DEFAULT_DENIED_PATHS, DEFAULT_TOOLS_CONFIG, ToolsConfigSchema, parseToolsConfig, type ToolsConfig, type ToolsConfigInput } from './config';
export {
  allowAll,
  allowList,
  allowReadOnly,
  denyAll,
  resolveApproval,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalPolicy,
  type ApprovalRequest,
  type AskCallback,
} from './approval';
export { disabledInModeMessage, isAvailableInMode } from './modes';
export { checkPath, checkPathSyntax, isDeniedPath, isGitDirName, isReservedName, isVisiblePath, type PathArg, type PathRole } from './sandbox';
export { gitignoreRules, isGitignorePath, type IgnoredPredicate } from './gitignore-rules';
export { RecordingVfs } from './recording-vfs';
export { assertFresh, forgetSeen, freshnessProblem, recordSeen } from './read-tracking';
export { sha256Hex } from './hash';
export { inputJsonSchema, withNullableOptionals, strictSchemaProblems, toAnthropicTool, toOpenAiTool, TOOL_NAME_PATTERN, type AnthropicToolSchema, type JsonSchema, type OpenAiToolSchema } from './json-schema';
export type { FileChange } from './recording-vfs';
export { BUILTIN_TOOLS } from './builtin';

/** A registry of the built-in tools. */
export function createToolRegistry(): ToolRegistry {
  return new ToolRegistry(BUILTIN_TOOLS);
}

/** The built-in tools' schemas in OpenAI (strict) and Anthropic form: what `forge tools --json` prints. */
export function exportToolSchemas(config: ToolsConfig = DEFAULT_TOOLS_CONFIG): ToolSchemas {
  return createToolRegistry().schemas(config);
}
