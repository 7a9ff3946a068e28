/** The executable entry of dist/forge.cjs: every command. */
import { main } from './main';
import { startCli } from './start';

startCli(main);
