#!/usr/bin/env node
'use strict';
// When the process got here (the runtime's start), for FORGE_TIMING_FILE (src/cli/phase-timing.ts).
globalThis[Symbol.for('forge.launched')] = performance.now();
// The `forge` executable (dist/cli.cjs; CommonJS: an ES module entry costs Node ~7 ms more CPU to
// resolve and link, measured on `forge cat`): runs dist/forge.cjs with a V8 code cache, written after the first run
// and whenever V8 rejects it (another Node version). The cache goes to the user's cache
// directory ($XDG_CACHE_HOME/forge, else ~/.cache/forge; %LOCALAPPDATA%\forge on Windows),
// never beside the bundle: the package directory may be read-only, shared, or about to be packed
// (an earlier launcher's caches landed in the repository and the tarball). Its name carries
// the build id (a hash of forge.cjs, set by scripts/build.mjs): V8 checks a cache against the
// source length only, so a rebuilt bundle must never meet an old cache. A cache that cannot be
// written only costs start-up time.
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const BUILD_ID = '__FORGE_BUILD_ID__';
const file = join(__dirname, 'forge.cjs');

function cacheDir() {
  const env = process.env;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'forge');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'forge');
  return join(homedir(), '.cache', 'forge');
}

const dir = cacheDir();
const cacheFile = join(dir, `forge.${BUILD_ID}.cache`);
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
      // Caches of other builds (each rebuild has a new id) would pile up: keep this one.
      for (const name of readdirSync(dir)) {
        if (/^forge\.[0-9a-f]+\.cache$/.test(name) && join(dir, name) !== cacheFile) rmSync(join(dir, name), { force: true });
      }
    } catch {
      // Best effort: the next run compiles again.
    }
  });
}
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, dirname(file));
