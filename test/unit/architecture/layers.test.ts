import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayers } from '../../../scripts/check-layers.mjs';
import { makeTempDir } from '../../helpers/temp';

describe('layer rules (docs/ARCHITECTURE.md)', () => {
  it('src/ imports only upward, node:* only in adapters, isomorphic-git only in src/git', () => {
    expect(checkLayers(resolve('src'))).toEqual([]);
  });

  it('reports each kind of violation', () => {
    const root = makeTempDir('layers');
    const put = (path: string, text: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    put('git/repo.ts', "import { x } from '../session/store';\n");
    put('session/store.ts', "import { readFile } from 'node:fs';\nexport const x = 1;\n");
    put('vfs/view.ts', "const git = await import('isomorphic-git');\n");
    put('git/node/platform.ts', "import { createHash } from 'node:crypto';\n");
    const problems = checkLayers(root);
    expect(problems).toContain('git/repo.ts: layer git imports session, which is below it');
    expect(problems).toContain('session/store.ts: imports node:fs outside an adapter');
    expect(problems).toContain('vfs/view.ts: imports isomorphic-git outside src/git');
    expect(problems.some((p) => p.startsWith('git/node/'))).toBe(false);
  });
});
