/** The executable entry: run the CLI and exit with its code. */
import { main } from './main';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
