/** The entry of dist/forge-view.cjs: cat, ls and materialize alone (see command-groups.ts). */
import { COMMAND_GROUPS } from './command-groups';
import { registerView } from './commands/view';
import { runCli } from './program';
import { startCli } from './start';

startCli((argv) => runCli([[COMMAND_GROUPS.view.commands, async () => registerView]], argv));
