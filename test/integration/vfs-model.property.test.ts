import fc from 'fast-check';
import { describe, it } from 'vitest';
import { diskBackend } from '../helpers/engine-repos';
import { opsArb, runModel } from '../helpers/suites/vfs-model';

// More runs on memfs: test/unit/vfs/vfs-model.property.test.ts.
describe('WorkInProgressVfs against a plain model on disk+node', () => {
  it('never diverges, and every commit is what git ls-tree / cat-file read and passes git fsck --strict', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, (ops) => runModel(diskBackend, ops, { gitCheck: 'every-commit' })),
      { numRuns: 10 },
    );
  });
});
