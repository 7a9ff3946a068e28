/**
 * The registry of stable error codes. Each area keeps its codes in its own file under codes/;
 * this module joins them so that a code is declared once and its kind is fixed with it.
 */
import { CORE_CODES } from './codes/core';
import { TEXT_CODES } from './codes/text';
import { TOOL_CODES } from './codes/tools';
import { UNDO_CODES } from './codes/undo';
import { BRANCHES_CODES } from './codes/branches';
import { AGENT_CODES } from './codes/agent';
import { MOUNT_CODES } from './codes/mount';
import { MCP_CODES } from './codes/mcp';
import { REPO_TOOL_CODES } from './codes/repo-tools';
import { REMOTE_CODES } from './codes/remote';
import { INSPECT_CODES } from './codes/inspect';

/**
 * user: the caller should fix its input; conflict: someone else moved things; unsupported: the
 * repository or request uses what the engine does not do; remote: a server answered something
 * invalid, hostile or too much (neither the user's input nor a Forge bug); corrupt: data in the
 * repository is damaged (an object, a pack, a ref file, a session's state or journal): not a
 * Forge bug, and `git fsck` says more; internal: a bug in Forge.
 */
export type ErrorKind = 'user' | 'conflict' | 'unsupported' | 'remote' | 'corrupt' | 'internal';

interface CodeInfo {
  readonly kind: ErrorKind;
  readonly summary: string;
}

export const ERROR_CODES = { ...CORE_CODES, ...TEXT_CODES, ...TOOL_CODES, ...UNDO_CODES, ...BRANCHES_CODES, ...AGENT_CODES, ...MOUNT_CODES, ...MCP_CODES, ...REPO_TOOL_CODES, ...REMOTE_CODES, ...INSPECT_CODES } satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
