/**
 * The messages between the host and a worker that runs one repository-tool call
 * (node/worker-sandbox.ts, node/worker-main.ts). The worker has no view: each `vfs` operation
 * is a message the host answers through the call's SandboxVfs, the host's one write path.
 * Errors cross as ForgeError's JSON and come back as ForgeErrors with the same code.
 */
import { ERROR_CODES, ForgeError, toForgeError, type ErrorCode } from '../../errors';
import type { RepoToolLimits } from './limits';
import type { SandboxVfs, ToolModuleInfo } from './wasm-sandbox';

export type VfsMethod = keyof SandboxVfs;

export interface WireError {
  code: string;
  message: string;
  hint?: string;
  data?: Record<string, unknown>;
}

/** Host -> worker. */
export type ToWorker =
  | { type: 'inspect'; source: string; filename: string; limits: RepoToolLimits; maxStackBytes: number }
  | { type: 'execute'; source: string; filename: string; args: unknown; limits: RepoToolLimits; maxStackBytes: number }
  | { type: 'vfs-result'; id: number; ok: true; value: unknown }
  | { type: 'vfs-result'; id: number; ok: false; error: WireError };

/** Worker -> host. `started`: the tool's code is about to run (the host's hard deadline starts). */
export type FromWorker =
  | { type: 'started' }
  | { type: 'vfs'; id: number; method: VfsMethod; args: unknown[] }
  | { type: 'done'; ok: true; value: string | ToolModuleInfo; memoryBytes: number }
  | { type: 'done'; ok: false; error: WireError; memoryBytes: number };

export function toWire(error: unknown): WireError {
  const forgeError = toForgeError(error);
  const wire: WireError = { code: forgeError.code, message: forgeError.message };
  if (forgeError.hint !== undefined) wire.hint = forgeError.hint;
  if (Object.keys(forgeError.data).length > 0) wire.data = forgeError.data;
  return wire;
}

export function fromWire(wire: WireError): ForgeError {
  const code: ErrorCode = Object.hasOwn(ERROR_CODES, wire.code) ? (wire.code as ErrorCode) : 'INTERNAL';
  return new ForgeError(code, wire.message, { ...(wire.data ? { data: wire.data } : {}), ...(wire.hint !== undefined ? { hint: wire.hint } : {}) });
}
