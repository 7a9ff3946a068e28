/** Repository-defined tools: tools/<name>.js, approved by content hash, run in a WASM sandbox. */
export { APPROVALS_PATH, parseApprovals, serializeApprovals, withApproval, type Approval, type ApprovalsFile } from './approvals';
export { approveRepoTool, approvalTarget, currentBranch, type ApproveOptions, type ApproveResult } from './approve';
export { REPO_TOOLS_DIR, readApprovals, readToolSource, repoToolPath, scanRepoTools, type RepoToolState, type RepoToolStatus } from './discover';
export { repoToolDefinition, specFromModule, type RepoToolOutput, type RepoToolSpec } from './definition';
export { DEFAULT_REPO_TOOL_LIMITS, RepoToolLimitsSchema, parseRepoToolLimits, type RepoToolLimits, type RepoToolLimitsInput } from './limits';
export { QuickJsSandbox, loadQuickJs, type LoadQuickJs, type QuickJsModules, type QuickJsSandboxOptions, type QuickJsWasm } from './quickjs-sandbox';
export { RepoTools, registryWithRepoTools, type RepoToolsOptions } from './repo-tools';
export type { SandboxVfs, ToolModuleInfo, WasmSandbox } from './wasm-sandbox';
export { CONFIG_PATH, repoToolLimitsFromConfig } from './config';
export { LocalToolTrust, TRUST_FILE, type ToolTrust, type TrustEntry } from './trust';
export { diffTool, listTools, type ToolDiff, type ToolListing } from './report';
