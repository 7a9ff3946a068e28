// Bundles the CLI and the library with esbuild: one file each, so `forge` starts fast
// (no module resolution of hundreds of files) and works right after `npm install`.
import { build } from 'esbuild';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';

mkdirSync('dist', { recursive: true });
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // CommonJS dependencies bundled into ESM need a require().
  banner: { js: "import { createRequire as __forgeCreateRequire } from 'node:module'; const require = __forgeCreateRequire(import.meta.url);" },
};
const entries = [
  { in: 'src/index.ts', out: 'dist/index.js' },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', shebang: true },
];
for (const entry of entries) {
  if (!existsSync(entry.in)) continue;
  await build({
    ...common,
    entryPoints: [entry.in],
    outfile: entry.out,
    banner: { js: (entry.shebang ? '#!/usr/bin/env node\n' : '') + common.banner.js },
  });
  if (entry.shebang) chmodSync(entry.out, 0o755);
}
