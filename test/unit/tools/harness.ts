/** Shared setup for tool tests: a strict in-memory view, fresh tool state, the built-in registry. */
import { expect } from 'vitest';
import type { ErrorCode } from '../../../src/errors';
import {
  allowAll,
  createToolContext,
  createToolRegistry,
  newToolState,
  type ApprovalPolicy,
  type ToolContext,
  type ToolError,
  type ToolRegistry,
  type ToolResult,
  type ToolState,
} from '../../../src/tools';
import { MemoryVfs, type MemoryEntrySpec } from '../../helpers/memory-vfs';

export interface Harness {
  vfs: MemoryVfs;
  state: ToolState;
  ctx: ToolContext;
  registry: ToolRegistry;
  call(name: string, args: unknown): Promise<ToolResult>;
  /** read_file, asserting success (records the file as seen). */
  read(path: string): Promise<{ file_hash: string; content?: string }>;
}

export interface HarnessOptions {
  mode?: ToolState['mode'];
  approval?: ApprovalPolicy;
  config?: unknown;
  registry?: ToolRegistry;
}

export async function setup(files: Record<string, MemoryEntrySpec> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const vfs = await MemoryVfs.create(files);
  const state = newToolState(options.mode ?? 'unrestricted');
  const ctx = createToolContext({ vfs, state, approval: options.approval ?? allowAll, config: options.config });
  const registry = options.registry ?? createToolRegistry();
  const call = (name: string, args: unknown) => registry.call(ctx, name, args);
  return {
    vfs,
    state,
    ctx,
    registry,
    call,
    async read(path) {
      return expectOk(await call('read_file', { path })) as { file_hash: string; content?: string };
    },
  };
}

export function expectOk(result: ToolResult): unknown {
  if (!result.ok) throw new Error(`expected ${result.tool} to succeed, got ${result.error.code}: ${result.error.message}`);
  return result.output;
}

export function expectError(result: ToolResult, code: ErrorCode): ToolError {
  if (result.ok) throw new Error(`expected ${result.tool} to fail with ${code}, but it succeeded: ${JSON.stringify(result.output)}`);
  expect(result.error.code, result.error.message).toBe(code);
  // Messages are for a model: never a stack trace.
  expect(result.error.message).not.toMatch(/\n\s+at /);
  return result.error;
}

export const text = (s: string): Uint8Array => new TextEncoder().encode(s);
