import { diskBackend } from '../helpers/engine-repos';
import { sessionSuite } from '../helpers/suites/sessions';

// The same suite runs on memfs (both platforms) in test/unit/session/sessions.test.ts.
sessionSuite([diskBackend]);
