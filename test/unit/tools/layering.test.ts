import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../../src/tools');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

// The tool layer must run in a browser and import only the layers above it.
describe('src/tools imports', () => {
  // Adapters (a node/ folder: the worker thread a repository tool runs in) may use Node, as everywhere.
  const files = sources(ROOT).filter((f) => !relative(ROOT, f).split('/').includes('node'));

  it('finds the tool sources', () => {
    expect(files.length).toBeGreaterThan(15);
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s imports no node:* module and no lower layer', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3]!;
      expect(spec, spec).not.toMatch(/^node:/);
      if (spec.startsWith('.')) {
        const target = relative(join(__dirname, '../../../src'), join(file, '..', spec));
        expect(target, spec).toMatch(/^(errors|text|git|vfs|session|branches|tools)(\/|$)/);
      } else {
        // QuickJS is the repository tools' sandbox: WebAssembly, runtime-neutral.
        expect(['zod', 'ignore', 'diff', 'safe-regex2', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync']).toContain(spec);
      }
    }
  });
});
