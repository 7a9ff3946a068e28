import fc from 'fast-check';
import { describe, it } from 'vitest';
import { MEMFS_BACKENDS } from '../../helpers/engine-repos';
import { opsArb, runModel } from '../../helpers/suites/vfs-model';

// On disk, with git fsck after every commit: test/integration/vfs-model.property.test.ts.
describe.each(MEMFS_BACKENDS.map((backend, i) => ({ backend, name: backend.name, runs: i === 0 ? 30 : 12 })))(
  'WorkInProgressVfs against a plain model on $name',
  ({ backend, runs }) => {
    it('never diverges over random write / delete / read / list / commit / reopen sequences; the last commit passes git fsck', async () => {
      await fc.assert(
        fc.asyncProperty(opsArb, (ops) => runModel(backend, ops, { gitCheck: 'last-commit' })),
        { numRuns: runs },
      );
    });
  },
);
