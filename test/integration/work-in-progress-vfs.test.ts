import { diskBackend } from '../helpers/engine-repos';
import { workInProgressVfsSuite } from '../helpers/suites/work-in-progress-vfs';

// The same suite runs on memfs (both platforms) in test/unit/vfs/work-in-progress-vfs.test.ts.
workInProgressVfsSuite([diskBackend]);
