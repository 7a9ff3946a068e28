// Builds dist/ with esbuild:
//  - dist/index.js: the library (ESM, dependencies left external so applications dedupe them);
//  - dist/forge.cjs: the whole CLI in one CommonJS file (no module resolution at start-up), but
//    for two packages loaded only when needed, from node_modules: isomorphic-git (with pako),
//    the object store's fallback where the fs has no synchronous reads, never used on Node's fs,
//    and the MCP SDK (with ajv), for `forge mcp` alone. Every process kept them in memory:
//    ~5 MiB of RSS, a third of the bundle;
//  - dist/cli.js: the `forge` executable, a launcher that runs forge.cjs through a V8 code
//    cache (Node 20 has no module compile cache): compiling the 1.1 MB bundle costs ~40 ms,
//    loading it from the cache ~15 ms. See docs/PERFORMANCE.md.
// Files are replaced atomically (temp + rename), so a build never leaves a half-written dist/
// under a running process. The cache file name carries a hash of forge.cjs: V8 validates a
// cache against the source length only, so a rebuilt bundle must never meet an old cache.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = 'dist';
mkdirSync(dist, { recursive: true });

function publish(name, contents, mode) {
  const tmp = join(dist, `.${name}.${process.pid}.tmp`);
  writeFileSync(tmp, contents, mode === undefined ? undefined : { mode });
  renameSync(tmp, join(dist, name));
}

async function bundle(options) {
  const result = await build({ ...options, bundle: true, platform: 'node', target: 'node20', write: false, sourcemap: 'linked', logLevel: 'warning' });
  return Object.fromEntries(result.outputFiles.map((f) => [f.path.split('/').pop(), f.contents]));
}

const library = await bundle({ entryPoints: ['src/index.ts'], outfile: join(dist, 'index.js'), packages: 'external', format: 'esm' });
const LOADED_WHEN_NEEDED = ['isomorphic-git', '@modelcontextprotocol/sdk'];
const cli = await bundle({ entryPoints: ['src/cli/bin.ts'], outfile: join(dist, 'forge.cjs'), format: 'cjs', minifyWhitespace: true, minifySyntax: true, external: LOADED_WHEN_NEEDED });

const buildId = createHash('sha256').update(cli['forge.cjs']).digest('hex').slice(0, 16);
const launcher = readFileSync('scripts/cli-launcher.mjs', 'utf8').replace('__FORGE_BUILD_ID__', buildId);

for (const [name, contents] of Object.entries({ ...library, ...cli })) publish(name, contents);
publish('cli.js', launcher, 0o755);
for (const name of readdirSync(dist)) {
  if (name.endsWith('.cache') && name !== `forge.${buildId}.cache`) rmSync(join(dist, name), { force: true });
}
