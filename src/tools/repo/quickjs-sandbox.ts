/**
 * The WasmSandbox on QuickJS compiled to WebAssembly (quickjs-emscripten, release "sync"
 * variant: the smallest and fastest build; host calls are async through promises, so asyncify
 * is not needed). It runs the same in Node and in browsers. Each call gets a fresh WebAssembly
 * instance over a fresh memory whose maximum is the memory limit (plus the module's own 16 MiB):
 * nothing a tool leaves behind (globals, prototypes) reaches the next call, every allocation
 * counts against the limit (this QuickJS build cannot measure allocation sizes, so QuickJS's own
 * limit stopped only single large ones), and the memory is given back when the call ends.
 *
 * Time: an interrupt check stops guest code at the deadline, but a native built-in (a sort, an
 * `includes` over 2**53 indices) never reaches it. This runner is therefore the in-thread one
 * the browser build uses; Node runs it inside a worker thread the host terminates at the
 * deadline (node/worker-sandbox.ts), so nothing a tool does outlasts its limit there.
 *
 * What a tool sees: the ECMAScript built-ins without `Date` (no clock, so a tool's output
 * follows from its input and the files), no module loader (any `import` fails), no `process`,
 * `require`, `fetch`, timers or console, and the `vfs` object passed to `execute`. The host
 * never calls a function the guest could have replaced (no guest `Promise.resolve` or `then`):
 * it polls the result's promise state after running the guest's jobs.
 */
import type { CustomizeVariantOptions, QuickJSHandle, QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { ForgeError, type ErrorCode } from '../../errors';
import type { RepoToolLimits } from './limits';
import { jsonNestingDepth } from '../json-depth';
import { DEFAULT_MAX_STACK_BYTES, MAX_RESULT_DEPTH, Run, boundedMemory, hostError, limitError, limitKind, maximumPages, neverGrew } from './quickjs-run';
import { guestJson, guestVfs } from './quickjs-vfs';
import type { SandboxVfs, ToolModuleInfo, WasmSandbox } from './wasm-sandbox';

/**
 * Instantiates the QuickJS WebAssembly module over the given memory (one instance per call);
 * the default imports quickjs-emscripten-core and the release-sync variant.
 */
export type LoadQuickJs = (memory: WebAssembly.Memory) => Promise<QuickJSWASMModule>;

/**
 * QuickJS's WebAssembly file (the variant's `dist/emscripten-module.wasm`, also exported as
 * `@jitl/quickjs-wasmfile-release-sync/wasm`): a URL to fetch it from (a path in Node), its
 * bytes, or the compiled module.
 */
export type QuickJsWasm = string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module;

/** The two QuickJS packages, as `import()` gives them. */
export interface QuickJsModules {
  core: Pick<typeof import('quickjs-emscripten-core'), 'newQuickJSWASMModuleFromVariant' | 'newVariant'>;
  variant: QuickJSSyncVariant | { default: QuickJSSyncVariant };
}

/**
 * Where QuickJS comes from. Nothing of it is loaded before the first repository tool runs (the
 * browser bundle holds none of it: it is imported then, and the .wasm fetched then).
 */
export interface QuickJsSandboxOptions {
  /**
   * QuickJS's stack limit (default DEFAULT_MAX_STACK_BYTES, safe on a ~1 MiB host stack); a
   * host thread with a larger stack may allow deeper recursion.
   */
  maxStackBytes?: number;
  /**
   * The .wasm; default: the variant's own file, found next to its module (node_modules in Node;
   * in a browser, where the bundler or the import map put the variant's files).
   */
  wasm?: QuickJsWasm;
  /**
   * Imports the packages; default `import('quickjs-emscripten-core')` and
   * `import('@jitl/quickjs-wasmfile-release-sync')`, which Node, a bundler or an import map
   * resolves. A page with none of those passes its own copies.
   */
  modules?: () => Promise<QuickJsModules>;
}

/** How deeply an exported schema may nest (JSON levels): far beyond any real tool's, and safe for the host's recursive code. */
const MAX_SCHEMA_DEPTH = 64;

export class QuickJsSandbox implements WasmSandbox {
  private readonly load: LoadQuickJs;
  private readonly maxStackBytes: number;
  private readonly onStart: (memory: WebAssembly.Memory) => void;
  /** An instance a clean call left behind without growing its memory, for the next call with the same memory maximum. */
  private spare: { module: QuickJSWASMModule; memory: WebAssembly.Memory; pages: number } | null = null;

  /**
   * A loader function replaces the default loading entirely (the worker requires the packages).
   * `onStart` is told when a call's tool code is about to run, with the call's memory.
   */
  constructor(options: LoadQuickJs | QuickJsSandboxOptions = {}, tuning: { maxStackBytes?: number; onStart?: (memory: WebAssembly.Memory) => void } = {}) {
    this.load = typeof options === 'function' ? options : quickJsLoader(options);
    this.maxStackBytes = tuning.maxStackBytes ?? (typeof options === 'function' ? undefined : options.maxStackBytes) ?? DEFAULT_MAX_STACK_BYTES;
    this.onStart = tuning.onStart ?? (() => {});
  }

  /**
   * A fresh runtime and context on an instance whose memory is bounded by the limit: the spare
   * one when it fits, else a new one (its cost: docs/PERFORMANCE.md).
   */
  private async start(limits: RepoToolLimits): Promise<Run> {
    const pages = maximumPages(limits);
    const spare = this.spare;
    this.spare = null;
    const memory = spare?.pages === pages ? spare.memory : boundedMemory(limits);
    const module = spare?.pages === pages ? spare.module : await this.load(memory);
    this.onStart(memory);
    return new Run(module, limits, this.maxStackBytes, memory);
  }

  /**
   * Frees the call's runtime. Its instance serves the next call only when it was freed cleanly
   * and its memory never grew; otherwise it is dropped, and the memory with it.
   */
  private end(run: Run): void {
    if (run.dispose() && neverGrew(run.memory)) this.spare = { module: run.module, memory: run.memory, pages: maximumPages(run.limits) };
  }

  async inspect(source: string, filename: string, limits: RepoToolLimits): Promise<ToolModuleInfo> {
    const run = await this.start(limits);
    try {
      const exports = await this.evaluateModule(run, source, filename, limits);
      return this.declarations(run, exports, filename, limits);
    } catch (error) {
      throw this.afterFailure(error, run, filename, limits);
    } finally {
      this.end(run);
    }
  }

  /**
   * The module's description and schema as JSON made by the context's original JSON.stringify,
   * measured before the host parses it: a schema nested 20,000 deep is this tool's problem
   * (REPO_TOOL_INVALID), never a stack overflow in the host's code that loads every tool.
   */
  private declarations(run: Run, exports: QuickJSHandle, filename: string, limits: RepoToolLimits): ToolModuleInfo {
    const { vm } = run;
    const invalid = (problem: string) => new ForgeError('REPO_TOOL_INVALID', `${filename} ${problem}.`, { data: { file: filename }, hint: 'Export a plain JSON Schema of type object, a few levels deep.' });
    try {
      const execute = vm.getProp(exports, 'execute');
      const hasExecute = vm.typeof(execute) === 'function';
      execute.dispose();
      const declared = vm.newObject();
      for (const key of ['description', 'schema']) {
        const value = vm.getProp(exports, key);
        vm.setProp(declared, key, value);
        value.dispose();
      }
      const result = vm.callFunction(run.jsonStringify, vm.undefined, declared);
      declared.dispose();
      if (result.error) {
        const failure = this.guestFailure(run, result.error, filename, limits, 'exports a description or schema that is not JSON', 'REPO_TOOL_INVALID');
        if (failure.code === 'REPO_TOOL_DEPTH_LIMIT') throw invalid(`exports a schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
        throw failure;
      }
      const json = vm.getString(result.value);
      result.value.dispose();
      if (jsonNestingDepth(json, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) throw invalid(`exports a schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
      const info = JSON.parse(json) as { description?: unknown; schema?: unknown };
      return { description: info.description, schema: info.schema, hasExecute };
    } finally {
      exports.dispose();
    }
  }

  async execute(source: string, filename: string, vfs: SandboxVfs, args: unknown, limits: RepoToolLimits): Promise<string> {
    const run = await this.start(limits);
    try {
      const exports = await this.evaluateModule(run, source, filename, limits);
      const { vm } = run;
      const execute = vm.getProp(exports, 'execute');
      exports.dispose();
      if (vm.typeof(execute) !== 'function') {
        execute.dispose();
        throw new ForgeError('REPO_TOOL_INVALID', `${filename} does not export a function named execute.`, { data: { file: filename } });
      }
      const vfsHandle = guestVfs(run, vfs);
      const argsHandle = guestJson(run, JSON.stringify(args ?? {}));
      const called = vm.callFunction(execute, vm.undefined, vfsHandle, argsHandle);
      execute.dispose();
      vfsHandle.dispose();
      argsHandle.dispose();
      if (called.error) throw this.guestFailure(run, called.error, filename, limits, 'execute threw');
      const settled = await this.settle(run, called.value, limits, filename);
      try {
        return this.resultJson(run, settled, filename, limits);
      } finally {
        settled.dispose();
      }
    } catch (error) {
      throw this.afterFailure(error, run, filename, limits);
    } finally {
      // Writes the tool started without awaiting them land now, inside the call, not after it.
      await run.drain();
      this.end(run);
    }
  }

  /**
   * A QuickJS exception that reached the host (a host-side step interrupted, out of memory, or
   * the host's stack exhausted inside the WebAssembly code) becomes its limit's error.
   */
  private afterFailure(error: unknown, run: Run, filename: string, limits: RepoToolLimits): unknown {
    if (error instanceof ForgeError) return error;
    const limit = run.limitHit ?? limitKind(hostError(error));
    if (limit) {
      run.limitHit = limit;
      return limitError(limit, filename, limits);
    }
    // Not ours to explain (the instance broke): it is abandoned with the run.
    run.limitHit = 'memory';
    return error;
  }
  private async evaluateModule(run: Run, source: string, filename: string, limits: RepoToolLimits): Promise<QuickJSHandle> {
    const result = run.vm.evalCode(source, filename, { type: 'module', strict: true });
    if (result.error) throw this.guestFailure(run, result.error, filename, limits, 'the module does not load', 'REPO_TOOL_INVALID');
    // Top-level await makes the namespace a promise.
    return this.settle(run, result.value, limits, filename, 'REPO_TOOL_INVALID');
  }

  /** Waits for a guest value that may be a promise: guest jobs run after each host operation settles. */
  private settle(run: Run, value: QuickJSHandle, limits: RepoToolLimits, filename: string, code: ErrorCode = 'REPO_TOOL_FAILED'): Promise<QuickJSHandle> {
    const { vm } = run;
    return new Promise<QuickJSHandle>((resolve, reject) => {
      let finished = false;
      const finish = (outcome: () => QuickJSHandle) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        run.recheck = () => {};
        try {
          resolve(outcome());
        } catch (error) {
          reject(error);
        }
      };
      const check = () => {
        if (finished) return;
        run.pump();
        if (run.limitHit) {
          value.dispose();
          return finish(() => {
            throw limitError(run.limitHit!, filename, limits);
          });
        }
        const state = vm.getPromiseState(value);
        if (state.type === 'pending') return;
        if (state.type === 'fulfilled') {
          if (state.notAPromise) return finish(() => value);
          value.dispose();
          return finish(() => state.value);
        }
        value.dispose();
        const failure = this.guestFailure(run, state.error, filename, limits, code === 'REPO_TOOL_INVALID' ? 'the module does not load' : 'execute failed', code);
        return finish(() => {
          throw failure;
        });
      };
      const timer = setTimeout(() => {
        if (!finished) value.dispose();
        finish(() => {
          throw limitError('timeout', filename, limits);
        });
      }, run.msLeft + 1);
      run.recheck = check;
      check();
    });
  }

  /** The tool's error as a coded ForgeError (a limit hit inside the guest keeps its limit's code). */
  private guestFailure(run: Run, handle: QuickJSHandle, filename: string, limits: RepoToolLimits, what: string, code: ErrorCode = 'REPO_TOOL_FAILED'): ForgeError {
    const error = run.dump(handle);
    handle.dispose();
    const limit = run.limitHit ?? limitKind(error);
    if (limit) {
      run.limitHit = limit;
      return limitError(limit, filename, limits);
    }
    // Name, message and stack come capped (Run.dump): a 20 MB message never lands whole in the result or the session file.
    const message = `${error.name ? `${error.name}: ` : ''}${error.message ?? 'unknown error'}`;
    return new ForgeError(code, `${filename}: ${what}: ${message}. Nothing was changed.`, {
      data: { file: filename, error: message, ...(error.stack ? { stack: error.stack } : {}) },
    });
  }

  private resultJson(run: Run, value: QuickJSHandle, filename: string, limits: RepoToolLimits): string {
    const { vm } = run;
    if (vm.typeof(value) === 'undefined') return 'null';
    const result = vm.callFunction(run.jsonStringify, vm.undefined, value);
    if (result.error) throw this.guestFailure(run, result.error, filename, limits, 'its result is not JSON');
    const text = vm.typeof(result.value) === 'string' ? vm.getString(result.value) : 'null';
    result.value.dispose();
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > limits.output_limit_bytes) {
      throw new ForgeError('REPO_TOOL_OUTPUT_TOO_LARGE', `${filename} returned ${bytes} bytes, more than its ${limits.output_limit_bytes} byte output limit. Nothing was changed.`, {
        data: { bytes, limit_bytes: limits.output_limit_bytes },
        hint: 'Return a summary instead of whole file contents, or ask the user to raise repo_tools.output_limit_bytes.',
      });
    }
    // The host's own code (JSON.parse, the session record, MCP) walks the result recursively.
    if (jsonNestingDepth(text, MAX_RESULT_DEPTH) > MAX_RESULT_DEPTH) throw limitError('depth', filename, limits);
    return text;
  }
}

/** The packages through dynamic import(): Node and bundlers resolve them from node_modules, a bare page through an import map. */
async function importQuickJs(): Promise<QuickJsModules> {
  const [core, variant] = await Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-wasmfile-release-sync')]);
  return { core, variant: variant as QuickJsModules['variant'] };
}

/**
 * A QuickJS WebAssembly instance over `memory`, as the options say (ESM hosts: the library,
 * browsers). The CLI, a CommonJS bundle run from a V8 code cache without dynamic import(),
 * passes a require-based loader.
 */
export async function loadQuickJs(options: QuickJsSandboxOptions = {}, memory?: WebAssembly.Memory): Promise<QuickJSWASMModule> {
  return quickJsLoader(options)(memory ?? new WebAssembly.Memory({ initial: 256, maximum: 32768 }));
}

/** A loader that imports the packages once (and compiles given bytes once), then instantiates per call. */
export function quickJsLoader(options: QuickJsSandboxOptions = {}): LoadQuickJs {
  let modules: Promise<QuickJsModules> | null = null;
  let compiled: Promise<CustomizeVariantOptions> | null = null;
  return async (memory) => {
    modules ??= (options.modules ?? importQuickJs)();
    modules.catch(() => (modules = null));
    compiled ??= wasmSource(options.wasm);
    compiled.catch(() => (compiled = null));
    const [{ core, variant }, wasm] = await Promise.all([modules, compiled]);
    const base = 'default' in variant ? variant.default : variant;
    return core.newQuickJSWASMModuleFromVariant(core.newVariant(base, { ...wasm, wasmMemory: memory }));
  };
}


/** The variant options that locate the .wasm; bytes are compiled once, so each call only instantiates. */
async function wasmSource(wasm: QuickJsWasm | undefined): Promise<CustomizeVariantOptions> {
  if (wasm === undefined) return {};
  if (typeof wasm === 'string') return { wasmLocation: wasm };
  if (wasm instanceof URL) return { wasmLocation: wasm.href };
  if (wasm instanceof WebAssembly.Module) return { wasmModule: wasm };
  if (wasm instanceof ArrayBuffer || wasm instanceof Uint8Array) return { wasmModule: await WebAssembly.compile(wasm instanceof Uint8Array ? wasm.slice() : wasm) };
  throw new ForgeError('INVALID_ARGUMENT', 'The QuickJS wasm option is a URL, its bytes (ArrayBuffer or Uint8Array) or a WebAssembly.Module.');
}
