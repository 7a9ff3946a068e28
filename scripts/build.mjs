// Builds dist/ with esbuild:
//  - dist/index.js: the library (ESM, dependencies left external so applications dedupe them);
//  - dist/forge.cjs: the whole CLI in one CommonJS file (no module resolution at start-up), but
//    for two packages loaded only when needed, from node_modules: isomorphic-git (with pako),
//    which src/ no longer imports (the async object reader replaced it), the MCP SDK (with
//    ajv), for `forge mcp` alone, and QuickJS (quickjs-emscripten-core and its WebAssembly
//    variant, whose .wasm is found next to its own module), for repository tools alone. Every
//    process kept them in memory:
//    ~5 MiB of RSS, a third of the bundle;
//  - dist/browser.js: `forge-engine/browser` (src/browser.ts), one minified ESM file for browsers
//    with its dependencies inside (zod, diff, ignore, safe-regex2) and no isomorphic-git (the
//    engine does not import it; an application imports it itself to clone or fetch) and no
//    QuickJS: its two packages stay bare import()s, run when the first repository tool does and
//    resolved by the application's bundler (which also places the .wasm the variant locates with
//    `new URL(..., import.meta.url)`) or import map, or replaced by QuickJsSandbox's options.
//    Inlined, they would add ~23 KB gzipped that most pages never run, and the variant's
//    `new URL("emscripten-module.wasm", import.meta.url)` would point next to dist/browser.js,
//    where no .wasm is (a bundler such as webpack fails on it);
//  - dist/repo-tool-worker.cjs: the worker thread repository tools run in (Node), started by
//    the CLI and the library's NodeWorkerSandbox; QuickJS stays external as in forge.cjs;
//  - dist/browser-repo-tools.js: `forge-engine/browser/repo-tools`, the QuickJS sandbox alone
//    (dist/browser.js has no QuickJS import at all, so vite emits no .wasm for an app that never
//    runs a repository tool); it imports ForgeError from ./browser.js;
//  - dist/forge-<group>.cjs: a bundle per command group of src/cli/command-groups.ts (view: cat,
//    ls, materialize; merge: merge, diff), from src/cli/bin-<group>.ts, with only what those
//    commands import statically: the modules that only their dynamic imports reach are left out
//    (those the group lists in `leftOut`; any other is bundled as usual), and the launcher runs
//    forge.cjs for the options that reach them (`fullBundleFor`, e.g. `cat --session`).
//    forge-view.cjs is ~190 KB against forge.cjs's 1.7 MB: `forge cat`'s own CPU time (beyond
//    `node -e 0`) went from ~35 ms to ~16 ms (docs/PERFORMANCE.md, "Forge's own time");
//  - in every CLI bundle, node:crypto and node:child_process are required when first used, not
//    at load (scripts/cli-bundles.mjs): ~2-3 ms each of start-up that `forge cat` never needed;
//  - dist/cli.cjs: the `forge` executable (package.json's bin), a launcher that picks the bundle
//    from the command word (after the global options) and runs it through a V8 code cache (Node
//    20 has no module compile cache): compiling forge.cjs costs ~40 ms, loading it from the cache
//    ~15 ms. The caches live in the user's cache directory (see cli-launcher.cjs), one per bundle,
//    never in dist/ or the package;
//  - dist/types: the library's declarations (tsc, tsconfig.build.json), what package.json's
//    "exports" give TypeScript consumers. Relative specifiers get the `.js` / `/index.js` that
//    node16/nodenext resolution requires in an ES module package.
// Source maps: the library is not minified (its stack frames read as they are), so it has
// none; the CLI's linked map stays in dist/ for debugging in a clone and is not packed
// (2.6 MB that a CLI user never steps through).
// Files are replaced atomically (temp + rename), so a build never leaves a half-written dist/
// under a running process. The cache file names carry one hash of all the CLI's bundles (the
// build id): V8 validates a cache against the source length only, so a rebuilt bundle must never
// meet an old cache.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { LAZY_BUILTINS_BANNER, leaveOutDynamicImports, withLazyBuiltins } from './cli-bundles.mjs';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const dist = 'dist';
mkdirSync(dist, { recursive: true });

function publish(name, contents, mode) {
  const tmp = join(dist, `.${name}.${process.pid}.tmp`);
  writeFileSync(tmp, contents, mode === undefined ? undefined : { mode });
  renameSync(tmp, join(dist, name));
}

async function bundle(options) {
  const result = await build({ bundle: true, platform: 'node', target: 'node20', write: false, logLevel: 'warning', ...options });
  return Object.fromEntries(result.outputFiles.map((f) => [f.path.split('/').pop(), f.contents]));
}

const library = await bundle({ entryPoints: ['src/index.ts'], outfile: join(dist, 'index.js'), packages: 'external', format: 'esm', sourcemap: false });
// QuickJS, for repository tools alone (see the header); scripts/check-browser.mjs still checks its browser build.
const BROWSER_LOADED_WHEN_NEEDED = ['quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'];
const browser = { ...(await bundleBrowser()), ...(await bundleBrowserRepoTools()) };
// fuse-native: an optional dependency, loaded by `forge mount` alone (its native binary cannot be bundled).
const LOADED_WHEN_NEEDED = ['isomorphic-git', '@modelcontextprotocol/sdk', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync', 'fuse-native'];
const cliOptions = { format: 'cjs', sourcemap: 'linked', minifyWhitespace: true, minifySyntax: true, external: LOADED_WHEN_NEEDED, banner: { js: LAZY_BUILTINS_BANNER } };
const cli = withLazyBuiltins(await bundle({ entryPoints: ['src/cli/bin.ts'], outfile: join(dist, 'forge.cjs'), ...cliOptions }));
// A bundle per command group (src/cli/command-groups.ts): what those commands load, nothing else.
const groups = await commandGroups();
for (const [group, spec] of Object.entries(groups)) {
  Object.assign(cli, withLazyBuiltins(await bundle({ entryPoints: [`src/cli/bin-${group}.ts`], outfile: join(dist, `forge-${group}.cjs`), ...cliOptions, plugins: [leaveOutDynamicImports(group, spec.leftOut)] })));
}

// The worker thread repository tools run in (src/tools/repo/node/worker-main.ts), a file of its
// own because a Worker starts from a script; QuickJS stays in node_modules, as for the CLI.
const worker = await bundle({ entryPoints: ['src/tools/repo/node/worker-main.ts'], outfile: join(dist, 'repo-tool-worker.cjs'), format: 'cjs', minifyWhitespace: true, minifySyntax: true, external: LOADED_WHEN_NEEDED });

// One id for all the CLI's bundles (a rebuild changes them together), in every code cache's name.
const buildHash = createHash('sha256');
for (const name of Object.keys(cli).filter((n) => n.endsWith('.cjs')).sort()) buildHash.update(name).update(cli[name]);
const buildId = buildHash.digest('hex').slice(0, 16);
const bundleOf = Object.fromEntries(Object.entries(groups).flatMap(([group, spec]) => spec.commands.map((n) => [n, { bundle: `forge-${group}.cjs`, fullBundleFor: spec.fullBundleFor, v8Flags: spec.v8Flags ?? [] }])));
const launcher = readFileSync('scripts/cli-launcher.cjs', 'utf8')
  .replace("'__FORGE_BUILD_ID__'", `'${buildId}'`)
  .replace('__FORGE_BUNDLE_OF__', JSON.stringify(bundleOf));
// `node dist/cli.js` (the bin before the launcher became CommonJS) still works: it loads dist/cli.cjs.
const esmEntry = "#!/usr/bin/env node\n// The forge CLI is dist/cli.cjs (package.json's bin); this file keeps `node dist/cli.js` working.\nimport { createRequire } from 'node:module';\n\ncreateRequire(import.meta.url)('./cli.cjs');\n";

for (const [name, contents] of Object.entries({ ...library, ...browser, ...cli, ...worker })) publish(name, contents);
publish('cli.cjs', launcher, 0o755);
publish('cli.js', esmEntry, 0o755);
// Left by earlier builds: the code caches the launcher used to keep here, the library's map.
for (const name of readdirSync(dist)) {
  if (name.endsWith('.cache') || name === 'index.js.map') rmSync(join(dist, name), { force: true });
}

emitDeclarations();

/** src/cli/command-groups.ts's COMMAND_GROUPS, read from the source: the launcher's table and the bundles' entries agree with it. */
async function commandGroups() {
  const result = await build({ entryPoints: ['src/cli/command-groups.ts'], bundle: true, format: 'esm', write: false, logLevel: 'warning' });
  const { COMMAND_GROUPS } = await import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString('base64')}`);
  return COMMAND_GROUPS;
}

function filesBelow(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name)]));
}

/** tsc's declarations, unless they are newer than every source (tsc costs seconds even with nothing to do). */
function emitDeclarations() {
  const buildInfo = join(dist, 'types.tsbuildinfo');
  const entry = join(dist, 'types', 'index.d.ts');
  if (!existsSync(entry)) rmSync(buildInfo, { force: true }); // else tsc believes its output is there
  const inputs = [...filesBelow('src'), 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
  const built = existsSync(buildInfo) ? statSync(buildInfo).mtimeMs : 0;
  if (existsSync(entry) && inputs.every((file) => statSync(file).mtimeMs <= built)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  for (const file of filesBelow(join(dist, 'types'))) {
    if (!file.endsWith('.d.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/(from |import\()(['"])(\.{1,2}(?:\/[^'"]*)?)\2/g, (whole, lead, quote, specifier) => {
      if (specifier.endsWith('.js')) return whole;
      const target = join(dirname(file), specifier);
      const resolved = existsSync(`${target}.d.ts`) ? `${specifier}.js` : existsSync(join(target, 'index.d.ts')) ? `${specifier}/index.js` : undefined;
      if (resolved === undefined) throw new Error(`${relative('.', file)}: cannot resolve ${specifier}`);
      return `${lead}${quote}${resolved}${quote}`;
    });
    if (fixed !== text) writeFileSync(file, fixed);
  }
  // tsc leaves the buildinfo untouched when nothing changed: touch it so the check above holds.
  utimesSync(buildInfo, new Date(), new Date());
}

/**
 * `forge-engine/browser/repo-tools` (src/browser-repo-tools.ts): the QuickJS sandbox, apart from
 * dist/browser.js so that an app's bundler sees no QuickJS unless the app imports this. Its imports
 * of src/errors become `./browser.js`, which exports the same names: one ForgeError class for both
 * files (a copy would fail `instanceof` and turn the sandbox's error codes into INTERNAL).
 */
async function bundleBrowserRepoTools() {
  const errorsIndex = join(process.cwd(), 'src', 'errors', 'index.ts');
  const sharedErrors = {
    name: 'errors-from-browser-entry',
    setup(b) {
      b.onResolve({ filter: /\/errors$/ }, (args) => (join(args.resolveDir, args.path, 'index.ts') === errorsIndex ? { path: './browser.js', external: true } : undefined));
    },
  };
  const result = await build({
    entryPoints: ['src/browser-repo-tools.ts'],
    outfile: join(dist, 'browser-repo-tools.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    sourcemap: 'linked',
    logLevel: 'warning',
    external: BROWSER_LOADED_WHEN_NEEDED,
    plugins: [sharedErrors],
  });
  return Object.fromEntries(result.outputFiles.map((f) => [f.path.split('/').pop(), f.contents]));
}

/** The browser entry: platform browser, so that a node:* import or builtin fails the build. */
async function bundleBrowser() {
  const result = await build({
    entryPoints: ['src/browser.ts'],
    outfile: join(dist, 'browser.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    // The map stays in dist/ (the bundle-content test reads its sources); the package ships browser.js alone.
    sourcemap: 'linked',
    logLevel: 'warning',
    external: BROWSER_LOADED_WHEN_NEEDED,
  });
  return Object.fromEntries(result.outputFiles.map((f) => [f.path.split('/').pop(), f.contents]));
}

// The inspector's page (`forge inspect`): web/ bundled for the browser into dist/inspect/, with
// diff2html's and highlight.js's styles put before ours in one stylesheet.
{
  const out = join(dist, 'inspect');
  mkdirSync(out, { recursive: true });
  const page = await build({ entryPoints: ['web/main.ts'], bundle: true, platform: 'browser', format: 'iife', target: 'chrome110', minify: true, write: false, logLevel: 'warning', legalComments: 'none' });
  const css = ['node_modules/diff2html/bundles/css/diff2html.min.css', 'node_modules/highlight.js/styles/github.min.css', 'web/style.css'].map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const [name, contents] of Object.entries({ 'app.js': page.outputFiles[0].contents, 'app.css': css, 'index.html': readFileSync('web/index.html') })) {
    const tmp = join(out, `.${name}.${process.pid}.tmp`);
    writeFileSync(tmp, contents);
    renameSync(tmp, join(out, name));
  }
}
