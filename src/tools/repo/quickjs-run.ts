/**
 * One repository-tool call's QuickJS runtime and context (quickjs-sandbox.ts drives it): the
 * context's intrinsics (no Date), the stack and memory limits, the deadline, the vfs prelude
 * evaluated before any tool code, and how QuickJS's errors map to the limits' codes.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { ForgeError } from '../../errors';
import type { RepoToolLimits } from './limits';

/**
 * Wraps the raw host functions into the `vfs` a tool uses; the host object stays in this
 * closure. Strings cross the boundary as JSON text: the FFI's C strings would stop at a NUL
 * (a path "bad\u0000name" would arrive as "bad"), and JSON escapes every control character.
 * Evaluated before the tool's module, so it holds the original JSON.stringify and Promise.
 */
const VFS_PRELUDE = `(function () {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const reject = Promise.reject.bind(Promise);
  const isString = (value) => typeof value === 'string';
  const toBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return function (host) {
    const path = (fn) => (p, ...rest) => (isString(p) ? fn(stringify(p), ...rest) : reject(new TypeError('paths are strings, relative to the repository root')));
    return Object.freeze({
      readFile: path((p, encoding) => (encoding === 'bytes' ? host.readBytes(p).then((buffer) => new Uint8Array(buffer)) : host.readText(p).then(parse))),
      writeFile: path((p, content) => {
        if (isString(content)) return host.writeText(p, stringify(content));
        if (content instanceof Uint8Array) return host.writeBytes(p, toBuffer(content));
        return reject(new TypeError('writeFile takes a string or a Uint8Array'));
      }),
      deleteFile: path((p) => host.deleteFile(p)),
      exists: path((p) => host.exists(p)),
      list: (dir) => path((p) => host.list(p))(dir === undefined ? '' : dir),
      stat: path((p) => host.stat(p)),
    });
  };
})()`;

const SANDBOX_INTRINSICS = {
  BaseObjects: true,
  Date: false,
  Eval: true,
  StringNormalize: true,
  RegExp: true,
  JSON: true,
  Proxy: true,
  MapSet: true,
  TypedArrays: true,
  Promise: true,
  BigInt: true,
} as const;

/** Stack for the interpreter: deep enough for real code, far below the wasm stack. */
const MAX_STACK_BYTES = 512 * 1024;


export interface GuestError {
  name?: string;
  message?: string;
  stack?: string;
}

export function limitError(kind: 'timeout' | 'memory', filename: string, limits: RepoToolLimits): ForgeError {
  if (kind === 'timeout') {
    return new ForgeError('REPO_TOOL_TIMEOUT', `${filename} ran longer than its ${limits.time_limit_ms} ms time limit and was stopped. Nothing was changed.`, {
      data: { limit_ms: limits.time_limit_ms },
      hint: 'Call it on less input, or ask the user to raise repo_tools.time_limit_ms in .forge/config.json.',
    });
  }
  return new ForgeError('REPO_TOOL_MEMORY_LIMIT', `${filename} used more than its ${limits.memory_limit_bytes} byte memory limit and was stopped. Nothing was changed.`, {
    data: { limit_bytes: limits.memory_limit_bytes },
    hint: 'Call it on less input, or ask the user to raise repo_tools.memory_limit_bytes in .forge/config.json.',
  });
}

/** Which limit an error thrown inside QuickJS means, if any. */
export function limitKind(error: GuestError): 'timeout' | 'memory' | null {
  if (error.name === 'InternalError' && error.message === 'interrupted') return 'timeout';
  if (error.name === 'InternalError' && /out of memory/.test(error.message ?? '')) return 'memory';
  if (error.name === 'RangeError' && /out of memory/.test(error.message ?? '')) return 'memory';
  return null;
}

/** One call's runtime and context, with the bookkeeping that keeps late host callbacks out of a disposed VM. */
export class Run {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  disposed = false;
  /** A limit hit while running the guest's jobs (they report errors to us, not to the tool). */
  limitHit: 'timeout' | 'memory' | null = null;
  /** Set while a result is awaited: looks at the guest again after a host operation settled. */
  recheck: () => void = () => {};
  private readonly deadline: number;

  constructor(module: QuickJSWASMModule, limits: RepoToolLimits) {
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(limits.memory_limit_bytes);
    this.runtime.setMaxStackSize(MAX_STACK_BYTES);
    this.vm = this.runtime.newContext({ intrinsics: SANDBOX_INTRINSICS });
    // Before any tool code runs: the prelude and JSON.parse are the context's originals.
    this.prelude = this.vm.unwrapResult(this.vm.evalCode(VFS_PRELUDE, '<forge vfs>', { type: 'global' }));
    this.jsonParse = this.vm.unwrapResult(this.vm.evalCode('JSON.parse', '<forge>', { type: 'global' }));
    // The clock starts when the tool's own code can run.
    this.deadline = Date.now() + limits.time_limit_ms;
    this.runtime.setInterruptHandler(() => Date.now() > this.deadline);
  }

  readonly prelude: QuickJSHandle;
  readonly jsonParse: QuickJSHandle;

  /** Host operations started by the guest and not yet settled (quickjs-vfs.ts hostCall). */
  readonly inflight = new Set<Promise<void>>();

  /**
   * Waits until every host operation the guest started has settled, those it never awaited
   * included: their writes then land while the call is still open (a failed call's are rolled
   * back with the rest), never after it, and no guest promise outlives the runtime. No guest
   * code runs meanwhile (jobs run only while a result is awaited), so no new operation starts.
   */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  get msLeft(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  dump(handle: QuickJSHandle): GuestError {
    try {
      const value = this.vm.dump(handle) as unknown;
      if (value && typeof value === 'object') return value as GuestError;
      return { message: String(value) };
    } catch {
      return { message: 'an error that could not be read' };
    }
  }

  /** Runs pending guest jobs; a limit hit there is remembered. */
  pump(): void {
    if (this.disposed || this.limitHit) return;
    const result = this.runtime.executePendingJobs();
    if (result.error) {
      const error = this.dump(result.error);
      result.error.dispose();
      this.limitHit = limitKind(error) ?? this.limitHit;
    }
  }

  /**
   * Frees the runtime. False when it must not be freed: QuickJS can leave objects behind when it
   * runs out of memory half-way, and freeing a runtime with live objects aborts the whole
   * WebAssembly instance, so such a run is abandoned with its module (the caller drops it).
   */
  dispose(): boolean {
    if (this.disposed) return true;
    this.disposed = true;
    if (this.limitHit === 'memory') return false;
    try {
      this.prelude.dispose();
      this.jsonParse.dispose();
      this.vm.dispose();
      this.runtime.dispose();
      return true;
    } catch {
      return false;
    }
  }
}
