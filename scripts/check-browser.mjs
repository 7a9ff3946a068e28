// Proves that the browser entry (src/browser.ts) can run where there is no Node: bundles its whole
// import graph for the browser platform with esbuild and fails on
//  - any node:* module or Node builtin (esbuild cannot resolve them for the browser platform);
//  - any free reference to a Node global (Buffer, process, global, setImmediate, __dirname, __filename):
//    esbuild's `define` replaces exactly the free references, so each becomes a marker to find.
// Packages the browser bundle leaves external (QuickJS, imported when a repository tool first runs)
// are bundled here, so they are checked too.
// A third-party module may keep a use guarded by `typeof`, when listed in GUARDED with the reason
// (it then does nothing in a browser); our own code may not use them at all.
// Usage: node scripts/check-browser.mjs  (exit 1 and one line per violation). Also run by the tests.
import { build } from 'esbuild';

// Not `require`: esbuild resolves a bundled CommonJS module's require() calls itself.
const NODE_GLOBALS = ['Buffer', 'process', 'global', 'setImmediate', '__dirname', '__filename'];
const marker = (name) => `__FORGE_NODE_GLOBAL_${name}__`;

/** Third-party modules allowed a `typeof`-guarded Node global, and why it is harmless. */
export const GUARDED = {
  'node_modules/ignore/index.js': 'process: `typeof process !== "undefined" && process.platform === "win32"` picks Windows path rules',
};

export async function checkBrowserEntry(entry = 'src/browser.ts') {
  const problems = [];
  let result;
  try {
    result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      define: Object.fromEntries(NODE_GLOBALS.map((name) => [name, marker(name)])),
    });
  } catch (error) {
    for (const e of error.errors ?? [error]) problems.push(`${e.location ? `${e.location.file}: ` : ''}${e.text ?? e.message}`);
    return problems;
  }
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input.startsWith('node:') || input.startsWith('(disabled)')) problems.push(`the browser entry's graph holds ${input}`);
  }
  // esbuild heads each module of an unminified bundle with a `// <path>` comment.
  const text = result.outputFiles[0].text;
  // A symlinked node_modules (a git worktree's) is named by its real path: `../../x/node_modules/`.
  const modules = text.split(/\n(?=\/\/ (?:\S*\/)?(?:src|node_modules)\/)/);
  for (const chunk of modules) {
    const path = /^\/\/ (\S+)/.exec(chunk)?.[1]?.replace(/^(?:\.\.\/)+\S*?(?=node_modules\/)/, '') ?? '(bundle prologue)';
    for (const name of NODE_GLOBALS) {
      const uses = chunk.split(marker(name)).length - 1;
      if (uses === 0) continue;
      const guarded = Object.prototype.hasOwnProperty.call(GUARDED, path) && chunk.includes(`typeof ${marker(name)}`);
      if (!guarded) problems.push(`${path}: uses the Node global ${name} (${uses}x)`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = await checkBrowserEntry(process.argv[2]);
  for (const p of problems) console.error(p);
  process.exit(problems.length === 0 ? 0 : 1);
}
