// Keeps the import direction of docs/ARCHITECTURE.md honest:
//  - a layer imports only itself and the layers above it in LAYERS;
//  - node:* modules only in adapters (any `node/` folder, src/cli, src/mcp) and src/index.ts;
//  - isomorphic-git only inside src/git and src/remote (its protocol clients, if ever used there).
// Usage: node scripts/check-layers.mjs  (exit 1 and one line per violation). Also run by the tests.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';

export const LAYERS = ['errors', 'text', 'git', 'remote', 'vfs', 'session', 'branches', 'provenance', 'tools', 'agent', 'agents', 'mount', 'mcp', 'inspect', 'cli'];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(srcRoot, file) {
  const rel = relative(srcRoot, file).split('/');
  return rel.length === 1 ? null : rel[0];
}

function isAdapter(srcRoot, file) {
  const rel = relative(srcRoot, file);
  return rel === 'index.ts' || rel.split('/').includes('node') || rel.startsWith('cli/') || rel.startsWith('mcp/');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

export function checkLayers(srcRoot) {
  const problems = [];
  for (const file of files(srcRoot)) {
    const text = readFileSync(file, 'utf8');
    const from = layerOf(srcRoot, file);
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      const where = relative(srcRoot, file);
      if (spec.startsWith('node:') && !isAdapter(srcRoot, file)) problems.push(`${where}: imports ${spec} outside an adapter`);
      if (spec === 'isomorphic-git' || spec.startsWith('isomorphic-git/')) {
        if (from !== 'git' && from !== 'remote') problems.push(`${where}: imports isomorphic-git outside src/git`);
      }
      if (!spec.startsWith('.')) continue;
      const target = layerOf(srcRoot, resolve(dirname(file), spec) + '.ts');
      if (from === null || target === null || target === from) continue;
      const fromIndex = LAYERS.indexOf(from);
      const targetIndex = LAYERS.indexOf(target);
      if (fromIndex < 0) problems.push(`${where}: layer ${from} is not in the layer list`);
      else if (targetIndex < 0 || targetIndex > fromIndex) problems.push(`${where}: layer ${from} imports ${target}, which is below it`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = checkLayers(resolve('src'));
  for (const p of problems) console.error(p);
  process.exit(problems.length === 0 ? 0 : 1);
}
