// Drives the browser tests and the browser bench: Debian's Chromium (no browser download) through
// playwright-core, headless, on a page served from 127.0.0.1 (a secure context: WebCrypto, Web
// Locks) holding the shipped engine bundle (dist/browser.js, as /browser.js), test/browser/page.ts
// bundled with esbuild (lightning-fs, the scenarios and the bench) and QuickJS's packages behind
// an import map. Plain JS so that both vitest and `node bench/browser-bench.mjs` load it.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Debian's package installs it here; FORGE_CHROMIUM points elsewhere. */
export const CHROMIUM_PATH = process.env.FORGE_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumProblem() {
  if (!existsSync(CHROMIUM_PATH)) return `No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set FORGE_CHROMIUM.`;
  if (!existsSync(join(ROOT, 'dist', 'browser.js'))) return 'No dist/browser.js: run npm run build.';
  return null;
}

/**
 * Whether the tests that need Chromium are skipped: when it is missing, so that `npm test` passes
 * on a machine with Node, npm and git only, unless FORGE_REQUIRE_BROWSER=1 (set by .ci/run),
 * which makes them run and fail. Every such test is under `describe.skipIf(chromiumSkipped())`;
 * test/global-setup.ts names the files that use it in one line when they are skipped.
 */
export function chromiumSkipped(env = process.env) {
  return chromiumProblem() !== null && env.FORGE_REQUIRE_BROWSER !== '1';
}

/** The test files that hold Chromium tests (they call chromiumSkipped()). */
export function chromiumTestFiles() {
  const dir = join(ROOT, 'test', 'browser');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts') && readFileSync(join(dir, name), 'utf8').includes('chromiumSkipped()'))
    .map((name) => `test/browser/${name}`)
    .sort();
}

/**
 * The line `npm test` prints when the Chromium tests are skipped, and the error it stops with
 * when FORGE_REQUIRE_BROWSER=1 asks for them; null when Chromium is there.
 */
export function chromiumSkipNotice(env = process.env) {
  const problem = chromiumProblem();
  if (problem === null) return null;
  const files = chromiumTestFiles().join(', ');
  if (env.FORGE_REQUIRE_BROWSER === '1') return { fail: true, line: `FORGE_REQUIRE_BROWSER=1 but the Chromium tests cannot run (${files}): ${problem}` };
  return { fail: false, line: `Skipped the Chromium tests in ${files}: ${problem} (FORGE_REQUIRE_BROWSER=1 makes this a failure, as in .ci/run).` };
}

async function pageBundle() {
  const result = await build({
    entryPoints: [join(ROOT, 'test', 'browser', 'page.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    // The engine is the shipped bundle, fetched by the page itself.
    external: ['/browser.js', '/browser-repo-tools.js'],
  });
  return result.outputFiles[0].text;
}

/**
 * QuickJS as a page without a bundler serves it: its packages' own files from node_modules, and
 * an import map for the bare import()s dist/browser.js keeps (the repository tools' sandbox). The
 * variant then finds its .wasm next to its module, as in node_modules.
 */
const QUICKJS_PACKAGES = ['quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync', '@jitl/quickjs-ffi-types'];
const IMPORT_MAP = JSON.stringify({
  imports: {
    'quickjs-emscripten-core': '/node_modules/quickjs-emscripten-core/dist/index.mjs',
    '@jitl/quickjs-ffi-types': '/node_modules/@jitl/quickjs-ffi-types/dist/index.mjs',
    '@jitl/quickjs-wasmfile-release-sync': '/node_modules/@jitl/quickjs-wasmfile-release-sync/dist/index.mjs',
    '@jitl/quickjs-wasmfile-release-sync/emscripten-module': '/node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.browser.mjs',
  },
});

function serveQuickJs(response, pathname) {
  const rel = pathname.slice('/node_modules/'.length);
  const pkg = QUICKJS_PACKAGES.find((name) => rel.startsWith(`${name}/dist/`));
  const file = pkg === undefined ? '' : rel.slice(`${pkg}/dist/`.length);
  const path = pkg === undefined ? '' : join(ROOT, 'node_modules', pkg, 'dist', file);
  if (!/^[\w.-]+\.(?:mjs|wasm)$/.test(file) || !existsSync(path)) return response.writeHead(404).end();
  const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
  response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(readFileSync(path));
}

/**
 * git's smart HTTP for the repositories under `root`, on the page's own origin (no CORS): each
 * request runs `git http-backend` as a CGI script, as a web server would.
 */
function serveGit(root, request, response, path) {
  const url = new URL(request.url ?? '/', 'http://x');
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: path,
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  request.pipe(backend.stdin);
  const chunks = [];
  backend.stdout.on('data', (chunk) => chunks.push(chunk));
  backend.on('close', () => {
    const output = Buffer.concat(chunks);
    const split = output.indexOf('\r\n\r\n');
    const headers = {};
    let status = 200;
    for (const line of output.subarray(0, split).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else headers[name] = value;
    }
    response.writeHead(status, headers).end(output.subarray(split + 4));
  });
}

/** A tab on the test page: `call` runs a forgeTest method, `reload` reloads it (no waiting before) until it is ready again. */
async function openTab(context, origin) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const ready = () =>
    page.waitForFunction(() => 'forgeTest' in globalThis, undefined, { timeout: 30_000 }).catch((error) => {
      throw new Error(`The test page did not start: ${errors.join('; ') || error.message}`);
    });
  await page.goto(`${origin}/`);
  await ready();
  return {
    call: (name, ...args) => page.evaluate(([n, a]) => globalThis.forgeTest[n](...a), [name, args]),
    async reload() {
      await page.reload();
      await ready();
    },
    close: () => page.close(),
  };
}

/**
 * A page ready to run `window.forgeTest` methods; `call(name, ...args)` runs one and returns its
 * (JSON-serializable) result. `close()` ends the browser and the server. With `gitRoot`, the
 * repositories below it are served to the page over git's smart HTTP at /git/<name>.
 */
export async function openHarness({ gitRoot } = {}) {
  const problem = chromiumProblem();
  if (problem) throw new Error(problem);
  const files = {
    '/': {
      type: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><title>forge</title><script type="importmap">${IMPORT_MAP}</script><script type="module" src="/page.js"></script>`,
    },
    '/page.js': { type: 'text/javascript', body: await pageBundle() },
    '/browser.js': { type: 'text/javascript', body: readFileSync(join(ROOT, 'dist', 'browser.js')) },
    '/browser-repo-tools.js': { type: 'text/javascript', body: readFileSync(join(ROOT, 'dist', 'browser-repo-tools.js')) },
  };
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    if (gitRoot && pathname.startsWith('/git/')) return serveGit(gitRoot, request, response, pathname.slice('/git'.length));
    if (pathname.startsWith('/node_modules/')) return serveQuickJs(response, pathname);
    const file = files[new URL(request.url ?? '/', 'http://x').pathname];
    if (!file) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
  try {
    const origin = `http://127.0.0.1:${port}`;
    const context = await browser.newContext();
    const tab = await openTab(context, origin);
    return {
      ...tab,
      browserVersion: browser.version(),
      origin,
      // Another tab of the same origin and storage (IndexedDB, Web Locks).
      newTab: () => openTab(context, origin),
      async close() {
        await browser.close();
        await new Promise((ok) => server.close(ok));
      },
    };
  } catch (error) {
    await browser.close();
    server.close();
    throw error;
  }
}
