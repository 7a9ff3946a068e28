#!/usr/bin/env node
'use strict';
// When the process got here (the runtime's start), for FORGE_TIMING_FILE (src/cli/phase-timing.ts);
// only then: the global `performance` loads perf_hooks (~1 ms).
if (process.env.FORGE_TIMING_FILE !== undefined) globalThis[Symbol.for('forge.launched')] = performance.now();
// The `forge` executable (dist/cli.cjs; CommonJS: an ES module entry costs Node ~7 ms more CPU to
// resolve and link, measured on `forge cat`): runs the bundle for the command (a group's own,
// e.g. dist/forge-view.cjs for cat, else dist/forge.cjs; see bundleFor) with a V8 code cache,
// written after the first run and whenever V8 rejects it (another Node version). The caches go
// to the user's cache directory ($XDG_CACHE_HOME/forge, else ~/.cache/forge; %LOCALAPPDATA%\forge
// on Windows), never beside the bundles: the package directory may be read-only, shared, or
// about to be packed (an earlier launcher's caches landed in the repository and the tarball).
// A cache's name is its bundle's and the build id (a hash of all the CLI's bundles, set by
// scripts/build.mjs): V8 checks a cache against the source length only, so a rebuilt bundle
// must never meet an old cache. A cache that cannot be written only costs start-up time.
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const BUILD_ID = '__FORGE_BUILD_ID__';
// Which bundle runs a command: a group's own (dist/forge-<group>.cjs, src/cli/command-groups.ts),
// smaller to load, unless an option that needs the modules it leaves out is given; else
// dist/forge.cjs (every command, help, an unknown word). Set by the build.
const BUNDLE_OF = new Map(Object.entries(__FORGE_BUNDLE_OF__));

/** The bundle for these arguments, and the V8 flags it runs with; the command word is the first one after the global options, skipped as src/cli/globals.ts takes them. */
function bundleFor(argv) {
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-C' || arg === '--repo') i++;
    else if (!(arg.startsWith('--repo=') || (arg.startsWith('-C') && arg.length > 2) || arg === '--no-color' || arg === '-q' || arg === '--quiet')) break;
  }
  const route = i < argv.length ? BUNDLE_OF.get(argv[i]) : undefined;
  if (route === undefined) return { name: 'forge.cjs', v8Flags: [] };
  const needsFull = argv.slice(i + 1).some((arg) => route.fullBundleFor.some((option) => arg === option || arg.startsWith(`${option}=`)));
  return needsFull ? { name: 'forge.cjs', v8Flags: [] } : { name: route.bundle, v8Flags: route.v8Flags };
}

const { name, v8Flags } = bundleFor(process.argv.slice(2));
const file = join(__dirname, name);
// Before the bundle is compiled: V8 checks a code cache against its flags, so flags set later
// would make it reject (and rewrite) the cache on every run.
for (const flag of v8Flags) require('node:v8').setFlagsFromString(flag);

function cacheDir() {
  const env = process.env;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'forge');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'forge');
  return join(homedir(), '.cache', 'forge');
}

const dir = cacheDir();
const cacheFile = join(dir, `${name.slice(0, -'.cjs'.length)}.${BUILD_ID}.cache`);
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const wrapper = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
const script = new vm.Script(wrapper, { filename: file, cachedData });
if (cachedData === undefined || script.cachedDataRejected) {
  process.once('exit', () => {
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
      // Caches of other builds (each rebuild has a new id) would pile up: keep this build's.
      for (const entry of readdirSync(dir)) {
        const id = /^forge(?:-[a-z]+)?\.([0-9a-f]+)\.cache$/.exec(entry)?.[1];
        if (id !== undefined && id !== BUILD_ID) rmSync(join(dir, entry), { force: true });
      }
    } catch {
      // Best effort: the next run compiles again.
    }
  });
}
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, dirname(file));
