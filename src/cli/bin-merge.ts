/** The entry of dist/forge-merge.cjs: merge, rebase and diff alone (see command-groups.ts). */
import { registerMerge } from './commands/merge';
import { runCli } from './program';
import { startCli } from './start';

startCli((argv) => runCli([[['merge', 'rebase', 'diff'], async () => registerMerge]], argv));
