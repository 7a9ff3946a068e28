/**
 * `forge-engine/browser/repo-tools`: the repository tools' sandbox (QuickJS compiled to
 * WebAssembly) for browsers, apart from `forge-engine/browser` so that only an app that runs
 * repository tools has QuickJS in its module graph (vite's default build would otherwise emit its
 * 503 KB .wasm into every app). Pass an instance to RepoTools / registryWithRepoTools from
 * `forge-engine/browser`. QuickJS itself is still imported when the first tool runs (bare
 * import()s for the app's bundler or import map, or the `modules` / `wasm` options).
 * dist/browser-repo-tools.js takes ForgeError from ./browser.js, so both share one error class.
 */
export { QuickJsSandbox, type LoadQuickJs, type QuickJsModules, type QuickJsSandboxOptions, type QuickJsWasm } from './tools/repo/quickjs-sandbox';
