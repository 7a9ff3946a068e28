import { MEMFS_BACKENDS } from '../../helpers/engine-repos';
import { workInProgressVfsSuite } from '../../helpers/suites/work-in-progress-vfs';

// The same suite runs on a real repository in test/integration/work-in-progress-vfs.test.ts.
workInProgressVfsSuite(MEMFS_BACKENDS);
