import type { Plugin } from 'esbuild';

export declare const LAZY_BUILTINS: string[];
export declare const LAZY_BUILTINS_BANNER: string;
export declare function withLazyBuiltins<T>(files: Record<string, T>): Record<string, T | string>;
export declare function leaveOutDynamicImports(group: string, leftOut: readonly string[], root?: string): Plugin;
