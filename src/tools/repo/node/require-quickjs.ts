/**
 * QuickJS through require(): the CLI bundle and the worker bundle are CommonJS, run without
 * dynamic import(), and leave QuickJS out (loaded from node_modules only when a tool runs).
 * The .wasm is compiled once per thread; each call only instantiates it over its own memory.
 */
import { readFileSync } from 'node:fs';
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';

let compiled: WebAssembly.Module | null = null;

export async function requireQuickJs(memory: WebAssembly.Memory): Promise<QuickJSWASMModule> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const core = require('quickjs-emscripten-core') as typeof import('quickjs-emscripten-core');
  const variant = require('@jitl/quickjs-wasmfile-release-sync') as { default?: QuickJSSyncVariant } & QuickJSSyncVariant;
  compiled ??= new WebAssembly.Module(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  /* eslint-enable @typescript-eslint/no-require-imports */
  return core.newQuickJSWASMModuleFromVariant(core.newVariant(variant.default ?? variant, { wasmModule: compiled, wasmMemory: memory }));
}
