import { MEMFS_BACKENDS } from '../../helpers/engine-repos';
import { sessionSuite } from '../../helpers/suites/sessions';

// The same suite runs on a real repository in test/integration/sessions.test.ts.
sessionSuite(MEMFS_BACKENDS);
