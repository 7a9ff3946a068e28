/** The entry of dist/forge-view.cjs: cat, ls and materialize alone (see command-groups.ts). */
import { registerView } from './commands/view';
import { runCli } from './program';
import { startCli } from './start';

startCli((argv) => runCli([[['cat', 'ls', 'materialize'], async () => registerView]], argv));
