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
    // A call the host stopped at a limit spins here, where the interrupt check ends it at once
    // (a loop of un-awaited writes is too short between checks to reach one on its own).
    const guard = () => { if (host.halted()) for (;;) {} };
    const path = (fn) => (p, ...rest) => (guard(), isString(p) ? fn(stringify(p), ...rest) : reject(new TypeError('paths are strings, relative to the repository root')));
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

/** Error text a failed tool may put in its result and the session record (each of name, message, stack). */
export const MAX_ERROR_CHARS = 2000;

/** Reads a thrown value's name, message and stack as capped strings (see Run.dump). */
const DESCRIBE_ERROR = `(function () {
  'use strict';
  const stringify = JSON.stringify;
  const toText = String;
  const cut = (value) => {
    let text;
    try { text = toText(value); } catch { return '(unreadable)'; }
    return text.length <= ${MAX_ERROR_CHARS} ? text : text.slice(0, ${MAX_ERROR_CHARS}) + '… [truncated: ' + text.length + ' characters in all]';
  };
  return function (error) {
    if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return stringify({ name: null, message: cut(error), stack: null });
    let name, message, stack;
    try { name = error.name; message = error.message; stack = error.stack; } catch { return stringify({ name: null, message: '(unreadable)', stack: null }); }
    return stringify({ name: name === undefined ? null : cut(name), message: message === undefined ? '' : cut(message), stack: stack === undefined ? null : cut(stack) });
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

/**
 * QuickJS's own stack limit, checked on its shadow stack in the WebAssembly memory. Each guest
 * frame also takes host (V8) stack, about four times as much, and the host's stack must never
 * run out first (the guest would not see a catchable error, and QuickJS's state is left
 * half-unwound): 64 KiB (~340 plain frames) is safe on a browser's ~1 MiB main-thread stack; a
 * worker with a larger stack passes more (node/worker-sandbox.ts).
 */
export const DEFAULT_MAX_STACK_BYTES = 64 * 1024;

/**
 * The module's own minimum memory (Emscripten's INITIAL_MEMORY, 16 MiB): its data, its shadow
 * stack (about 7 MiB together) and the start of its heap.
 */
const BASE_MEMORY_BYTES = 16 << 20;
const PAGE_BYTES = 64 << 10;

/**
 * A fresh WebAssembly memory for one call whose maximum is the memory limit: data, stack and
 * heap together, every allocation counted. A limit under 16 MiB gets the module's minimum.
 */
export function boundedMemory(limits: RepoToolLimits): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: BASE_MEMORY_BYTES / PAGE_BYTES, maximum: maximumPages(limits) });
}

export function maximumPages(limits: RepoToolLimits): number {
  return Math.max(BASE_MEMORY_BYTES / PAGE_BYTES, Math.ceil(limits.memory_limit_bytes / PAGE_BYTES));
}

/** True when a memory never grew past the module's minimum (an instance worth keeping for the next call). */
export function neverGrew(memory: WebAssembly.Memory): boolean {
  return memory.buffer.byteLength <= BASE_MEMORY_BYTES;
}

export interface GuestError {
  name?: string;
  message?: string;
  stack?: string;
}

export type LimitKind = 'timeout' | 'memory' | 'depth';

export function limitError(kind: LimitKind, filename: string, limits: RepoToolLimits): ForgeError {
  if (kind === 'timeout') {
    return new ForgeError('REPO_TOOL_TIMEOUT', `${filename} ran longer than its ${limits.time_limit_ms} ms time limit and was stopped. Nothing was changed.`, {
      data: { limit_ms: limits.time_limit_ms },
      hint: 'Call it on less input, or ask the user to raise repo_tools.time_limit_ms in .forge/config.json.',
    });
  }
  if (kind === 'depth') {
    return new ForgeError('REPO_TOOL_DEPTH_LIMIT', `${filename} recursed deeper than the sandbox's stack allows, or built a value nested deeper than ${MAX_RESULT_DEPTH} levels, and was stopped. Nothing was changed.`, {
      data: { max_depth: MAX_RESULT_DEPTH },
      hint: 'Call it on smaller input; a tool must not recurse without bound or return deeply nested values.',
    });
  }
  return new ForgeError('REPO_TOOL_MEMORY_LIMIT', `${filename} used more than its ${limits.memory_limit_bytes} byte memory limit and was stopped. Nothing was changed.`, {
    data: { limit_bytes: limits.memory_limit_bytes },
    hint: 'Call it on less input, or ask the user to raise repo_tools.memory_limit_bytes in .forge/config.json.',
  });
}

/** How deeply a tool's result may nest arrays and objects (the host's recursive code walks it). */
export const MAX_RESULT_DEPTH = 512;

/**
 * Which limit an error thrown inside QuickJS means, if any. The host's own stack overflowing
 * while QuickJS ran (RangeError out of the WebAssembly code) is the depth limit too.
 */
export function limitKind(error: GuestError): LimitKind | null {
  if (error.name === 'InternalError' && error.message === 'interrupted') return 'timeout';
  if (error.name === 'InternalError' && /out of memory/.test(error.message ?? '')) return 'memory';
  if (error.name === 'RangeError' && /out of memory/.test(error.message ?? '')) return 'memory';
  if (error.name === 'InternalError' && error.message === 'stack overflow') return 'depth';
  if (error.name === 'RangeError' && /Maximum call stack size exceeded/.test(error.message ?? '')) return 'depth';
  return null;
}

/** A host exception as a GuestError, to ask limitKind about it. */
export function hostError(error: unknown): GuestError {
  const e = error as GuestError | null;
  return { name: typeof e?.name === 'string' ? e.name : '', message: typeof e?.message === 'string' ? e.message : '' };
}

/** One call's runtime and context, with the bookkeeping that keeps late host callbacks out of a disposed VM. */
export class Run {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  disposed = false;
  /** A limit hit while running the guest's jobs (they report errors to us, not to the tool). */
  limitHit: LimitKind | null = null;
  /** Bytes of writes handed to the host and not settled yet (bounded by the memory limit). */
  queuedBytes = 0;
  /** Set while a result is awaited: looks at the guest again after a host operation settled. */
  recheck: () => void = () => {};
  private readonly deadline: number;

  constructor(
    readonly module: QuickJSWASMModule,
    readonly limits: RepoToolLimits,
    maxStackBytes: number,
    readonly memory: WebAssembly.Memory,
  ) {
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(limits.memory_limit_bytes);
    this.runtime.setMaxStackSize(maxStackBytes);
    this.vm = this.runtime.newContext({ intrinsics: SANDBOX_INTRINSICS });
    // Before any tool code runs: the prelude and JSON.parse are the context's originals.
    this.prelude = this.vm.unwrapResult(this.vm.evalCode(VFS_PRELUDE, '<forge vfs>', { type: 'global' }));
    this.jsonParse = this.vm.unwrapResult(this.vm.evalCode('JSON.parse', '<forge>', { type: 'global' }));
    this.jsonStringify = this.vm.unwrapResult(this.vm.evalCode('JSON.stringify', '<forge>', { type: 'global' }));
    this.describeError = this.vm.unwrapResult(this.vm.evalCode(DESCRIBE_ERROR, '<forge>', { type: 'global' }));
    // The clock starts when the tool's own code can run.
    this.deadline = Date.now() + limits.time_limit_ms;
    // A limit the host saw (too many queued writes) stops the guest at once too.
    this.runtime.setInterruptHandler(() => this.limitHit !== null || Date.now() > this.deadline);
  }

  readonly prelude: QuickJSHandle;
  readonly jsonParse: QuickJSHandle;
  readonly jsonStringify: QuickJSHandle;
  readonly describeError: QuickJSHandle;

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

  /**
   * A thrown value's name, message and stack, each cut to MAX_ERROR_CHARS inside the guest (by
   * the function evaluated before any tool code): a 20 MB message is never copied out whole,
   * and never lands in the result or the session file.
   */
  dump(handle: QuickJSHandle): GuestError {
    // Reading the error allocates: when that fails with the memory at its maximum, memory ran out.
    const unreadable = (): GuestError => (this.memoryExhausted() ? { name: 'InternalError', message: 'out of memory' } : { message: 'an error that could not be read' });
    try {
      const result = this.vm.callFunction(this.describeError, this.vm.undefined, handle);
      if (result.error) {
        result.error.dispose();
        return unreadable();
      }
      const json = this.vm.getString(result.value);
      result.value.dispose();
      const { name, message, stack } = JSON.parse(json) as { name: string | null; message: string; stack: string | null };
      // QuickJS throws null when it cannot even allocate its "out of memory" error.
      if (name === null && message === 'null' && this.memoryExhausted()) return unreadable();
      return { message, ...(name === null ? {} : { name }), ...(stack === null ? {} : { stack }) };
    } catch {
      return unreadable();
    }
  }

  /** True when the WebAssembly memory cannot grow by another megabyte. */
  memoryExhausted(): boolean {
    return this.memory.buffer.byteLength + (1 << 20) > Math.max(16 << 20, this.limits.memory_limit_bytes);
  }

  /**
   * Runs pending guest jobs; a limit hit there is remembered. An exception out of the
   * WebAssembly code itself (the host's stack, or an abort after an allocation failed) ends the
   * run at its limit too: it would otherwise surface in a promise callback nobody awaits.
   */
  pump(): void {
    if (this.disposed || this.limitHit) return;
    let result: ReturnType<QuickJSRuntime['executePendingJobs']>;
    try {
      result = this.runtime.executePendingJobs();
    } catch (error) {
      this.limitHit = limitKind(hostError(error)) ?? 'memory';
      return;
    }
    if (result.error) {
      const error = this.dump(result.error);
      result.error.dispose();
      this.limitHit ??= limitKind(error);
    }
  }

  /**
   * Frees the runtime when that is safe. Each run has its own WebAssembly instance and memory,
   * dropped with the run, so a run stopped at a limit is simply abandoned: QuickJS can leave
   * objects behind when it runs out of memory or stack half-way, and freeing a runtime with live
   * objects aborts the instance.
   */
  /** True when the runtime was freed cleanly (its instance may serve another call). */
  dispose(): boolean {
    if (this.disposed) return false;
    this.disposed = true;
    if (this.limitHit !== null) return false;
    try {
      this.prelude.dispose();
      this.jsonParse.dispose();
      this.jsonStringify.dispose();
      this.describeError.dispose();
      this.vm.dispose();
      this.runtime.dispose();
      return true;
    } catch {
      return false;
    }
  }
}
