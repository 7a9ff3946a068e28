#!/usr/bin/env node
// The `forge` executable: runs dist/forge.cjs with a V8 code cache kept beside it
// (forge.<build id>.cache, the id being a hash of forge.cjs set by scripts/build.mjs), written
// after the first run and whenever V8 rejects it (another Node version). A cache that cannot be
// written (read-only install) only costs start-up time.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const file = join(dirname(fileURLToPath(import.meta.url)), 'forge.cjs');
const cacheFile = join(dirname(file), 'forge.__FORGE_BUILD_ID__.cache');
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
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // Best effort: the next run compiles again.
    }
  });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
