/**
 * QuickJS through require(): the CLI bundle and the worker bundle are CommonJS, run without
 * dynamic import(), and leave QuickJS out (loaded from node_modules only when a tool runs).
 */
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';

export async function requireQuickJs(memory: WebAssembly.Memory): Promise<QuickJSWASMModule> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const core = require('quickjs-emscripten-core') as typeof import('quickjs-emscripten-core');
  const variant = require('@jitl/quickjs-wasmfile-release-sync') as { default?: QuickJSSyncVariant } & QuickJSSyncVariant;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return core.newQuickJSWASMModuleFromVariant(core.newVariant(variant.default ?? variant, { wasmMemory: memory }));
}
