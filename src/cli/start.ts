/** What every executable entry (bin.ts and the group bundles' bin-*.ts) does: run the CLI and exit with its code. */
export function startCli(run: (argv: string[]) => Promise<number>): void {
  // A reader that stops early (`forge ls | head`) closes the pipe: stop quietly, as git does when
  // SIGPIPE ends it, instead of dying on an unhandled EPIPE with a stack trace. What was done is
  // done (a turn is committed before its report is printed).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });

  void run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
