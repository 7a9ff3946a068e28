/**
 * Forge's public API on Node: everything of the browser entry (src/browser.ts, the same layers
 * with the portable platform, repository tools included), plus what needs Node: the native
 * platform (zlib, sha1, fast pack reads), the working-tree adapter, run_command, and remotes
 * (their pack reader needs zlib's consumed-byte counts).
 * Node users pass `nodePlatform` to Repository.open.
 */
export * from './browser';
export * from './browser-repo-tools';
export { nodePlatform } from './git/node/platform';
export { nodeWorktreeSync } from './branches/node/worktree-sync';
export { createRunCommandTool, type RunCommandOptions, type CommandMount, type CommandWorkspace } from './agent/node/run-command';
export { mountSession, unmountDir, type MountedSession, type MountSessionOptions } from './mount/node/mount-session';
export { SessionCommandWorkspace, type SessionCommandWorkspaceOptions } from './mount/node/command-mount';
export { MountFs, SerialQueue, type MountFsOptions, type ScratchLayer } from './mount';
export {
  pushSessions,
  fetchSessions,
  pullSession,
  remoteSessionStatus,
  resolveFetchedSession,
  parseRemoteUrl,
  redactUrl,
  TOKEN_ENV,
  type PushOptions,
  type PushResult,
  type FetchOptions,
  type FetchResult,
  type PullOptions,
  type PullResult,
  type RemoteSessionStatus,
  type CredentialHelper,
} from './remote';
export { nodeStreamInflater } from './remote/node/stream-inflater';
export { gitCredentialHelper } from './remote/node/git-credential';
// Repository tools in a worker thread the host terminates at the deadline (entry: this package's dist/repo-tool-worker.cjs).
export { NodeWorkerSandbox, type NodeWorkerSandboxOptions } from './tools/repo/node/worker-sandbox';
