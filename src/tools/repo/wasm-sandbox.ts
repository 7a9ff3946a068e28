/**
 * What the engine needs from a sandbox to run repository tools, so the core stays
 * runtime-neutral: the platform injects an implementation (QuickJS compiled to WebAssembly,
 * quickjs-sandbox.ts, which runs in Node and in browsers). A sandbox runs one tool module's
 * source with no ambient authority: its only way out is the `SandboxVfs` it is handed.
 */
import type { RepoToolLimits } from './limits';

/** The file operations a tool may use; every path is checked by the host before it is used. */
export interface SandboxVfs {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, content: Uint8Array): Promise<void>;
  deleteFile(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  list(dir: string): Promise<Array<{ name: string; type: string }>>;
  stat(path: string): Promise<{ type: string; size: number } | null>;
}

/** A tool module's declarations, as the module exported them. */
export interface ToolModuleInfo {
  description: unknown;
  schema: unknown;
  hasExecute: boolean;
}

export interface WasmSandbox {
  /** Evaluates the module and returns its declarations (REPO_TOOL_INVALID when it does not load). */
  inspect(source: string, filename: string, limits: RepoToolLimits): Promise<ToolModuleInfo>;
  /**
   * Evaluates the module and awaits `execute(vfs, args)`. Returns the result as JSON text
   * (undefined -> "null"). Throws REPO_TOOL_TIMEOUT, REPO_TOOL_MEMORY_LIMIT,
   * REPO_TOOL_OUTPUT_TOO_LARGE or REPO_TOOL_FAILED; an error a `vfs` call threw on the host
   * is not seen by the caller here (the host keeps it), only the tool's failure.
   */
  execute(source: string, filename: string, vfs: SandboxVfs, args: unknown, limits: RepoToolLimits): Promise<string>;
}
