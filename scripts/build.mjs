// Builds dist/ with esbuild:
//  - dist/index.js: the library (ESM, dependencies left external so applications dedupe them);
//  - dist/forge.cjs: the whole CLI in one CommonJS file (no module resolution at start-up);
//  - dist/cli.js: the `forge` executable, a launcher that runs forge.cjs through a V8 code
//    cache (Node 20 has no module compile cache): compiling the 1.7 MB bundle costs ~45 ms,
//    loading it from the cache ~15 ms. See docs/PERFORMANCE.md.
import { build } from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});

await build({
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/forge.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});

copyFileSync('scripts/cli-launcher.mjs', 'dist/cli.js');
chmodSync('dist/cli.js', 0o755);
