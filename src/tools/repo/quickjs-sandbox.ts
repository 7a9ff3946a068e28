/**
 * The WasmSandbox on QuickJS compiled to WebAssembly (quickjs-emscripten, release "sync"
 * variant: the smallest and fastest build; host calls are async through promises, so asyncify
 * is not needed). It runs the same in Node and in browsers. Each call gets a fresh runtime and
 * context: nothing a tool leaves behind (globals, prototypes) reaches the next call, and the
 * memory limit is per call.
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
import { Run, limitError, limitKind, type GuestError } from './quickjs-run';
import { guestJson, guestVfs } from './quickjs-vfs';
import type { SandboxVfs, ToolModuleInfo, WasmSandbox } from './wasm-sandbox';

/** Loads the QuickJS WebAssembly module; the default imports quickjs-emscripten-core and the release-sync variant. */
export type LoadQuickJs = () => Promise<QuickJSWASMModule>;

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

export class QuickJsSandbox implements WasmSandbox {
  private module: Promise<QuickJSWASMModule> | null = null;
  private readonly load: LoadQuickJs;

  /** A loader function replaces the default loading entirely (the CLI requires the packages). */
  constructor(options: LoadQuickJs | QuickJsSandboxOptions = {}) {
    this.load = typeof options === 'function' ? options : () => loadQuickJs(options);
  }

  /** Loads the WebAssembly module once (the first call's cost; see docs/PERFORMANCE.md). */
  private wasm(): Promise<QuickJSWASMModule> {
    this.module ??= this.load();
    this.module.catch(() => (this.module = null));
    return this.module;
  }

  async inspect(source: string, filename: string, limits: RepoToolLimits): Promise<ToolModuleInfo> {
    const run = new Run(await this.wasm(), limits);
    try {
      const exports = await this.evaluateModule(run, source, filename, limits);
      try {
        const info = run.vm.dump(exports) as { description?: unknown; schema?: unknown };
        const execute = run.vm.getProp(exports, 'execute');
        const hasExecute = run.vm.typeof(execute) === 'function';
        execute.dispose();
        return { description: info?.description, schema: info?.schema, hasExecute };
      } finally {
        exports.dispose();
      }
    } catch (error) {
      throw this.afterFailure(error, run, filename, limits);
    } finally {
      this.end(run);
    }
  }

  /** Frees a run, or drops the WebAssembly module a run could not be freed from (a fresh one is loaded next time). */
  private end(run: Run): void {
    if (!run.dispose()) this.module = null;
  }

  async execute(source: string, filename: string, vfs: SandboxVfs, args: unknown, limits: RepoToolLimits): Promise<string> {
    const run = new Run(await this.wasm(), limits);
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
   * A QuickJS exception that reached the host (a host-side step interrupted or out of memory)
   * becomes its limit's error; anything else that is not ours to explain (the WASM runtime
   * itself broke) drops the module, so the next call starts clean.
   */
  private afterFailure(error: unknown, run: Run, filename: string, limits: RepoToolLimits): unknown {
    if (error instanceof ForgeError) return error;
    const limit = limitKind({ name: (error as GuestError)?.name ?? '', message: (error as GuestError)?.message ?? '' }) ?? run.limitHit;
    if (limit) {
      run.limitHit = limit;
      return limitError(limit, filename, limits);
    }
    this.module = null;
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
    const limit = limitKind(error) ?? run.limitHit;
    if (limit) {
      run.limitHit = limit;
      return limitError(limit, filename, limits);
    }
    const message = `${error.name ? `${error.name}: ` : ''}${error.message ?? 'unknown error'}`;
    return new ForgeError(code, `${filename}: ${what}: ${message}. Nothing was changed.`, {
      data: { file: filename, error: message, ...(error.stack ? { stack: error.stack } : {}) },
    });
  }

  private resultJson(run: Run, value: QuickJSHandle, filename: string, limits: RepoToolLimits): string {
    const { vm } = run;
    if (vm.typeof(value) === 'undefined') return 'null';
    const json = vm.getProp(vm.global, 'JSON');
    const stringify = vm.getProp(json, 'stringify');
    const result = vm.callFunction(stringify, json, value);
    stringify.dispose();
    json.dispose();
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
    return text;
  }
}

/** The packages through dynamic import(): Node and bundlers resolve them from node_modules, a bare page through an import map. */
async function importQuickJs(): Promise<QuickJsModules> {
  const [core, variant] = await Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-wasmfile-release-sync')]);
  return { core, variant: variant as QuickJsModules['variant'] };
}

/**
 * The QuickJS WebAssembly module as the options say (ESM hosts: the library, browsers). The CLI,
 * a CommonJS bundle run from a V8 code cache without dynamic import(), passes a require-based loader.
 */
export async function loadQuickJs(options: QuickJsSandboxOptions = {}): Promise<QuickJSWASMModule> {
  const { core, variant } = await (options.modules ?? importQuickJs)();
  const base = 'default' in variant ? variant.default : variant;
  return core.newQuickJSWASMModuleFromVariant(options.wasm === undefined ? base : core.newVariant(base, wasmSource(options.wasm)));
}

function wasmSource(wasm: QuickJsWasm): CustomizeVariantOptions {
  if (typeof wasm === 'string') return { wasmLocation: wasm };
  if (wasm instanceof URL) return { wasmLocation: wasm.href };
  if (wasm instanceof WebAssembly.Module) return { wasmModule: wasm };
  if (wasm instanceof ArrayBuffer) return { wasmBinary: wasm };
  if (wasm instanceof Uint8Array) return { wasmBinary: wasm.slice().buffer as ArrayBuffer };
  throw new ForgeError('INVALID_ARGUMENT', 'The QuickJS wasm option is a URL, its bytes (ArrayBuffer or Uint8Array) or a WebAssembly.Module.');
}
