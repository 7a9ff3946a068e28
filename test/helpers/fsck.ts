/**
 * `git fsck --strict` as the judge of every repository a test wrote to.
 *
 * Dangling objects are fine (the engine writes blobs before it knows whether a commit will use
 * them) and so are `notice:` lines (e.g. "HEAD points to an unborn branch" in a bare repo that
 * only has forge/session/* branches). Any other line - an error, a warning, a missing or broken
 * link - or a non-zero exit is a failure.
 */
import { git } from './git-cli';

export interface FsckReport {
  status: number;
  /** The lines that make the repository unclean. Empty when clean. */
  problems: string[];
  /** Everything fsck printed, stdout then stderr. */
  output: string;
}

/** Runs fsck and sorts its output into tolerated lines and problems. */
export function fsckReport(gitdir: string): FsckReport {
  const result = git(gitdir, [`--git-dir=${gitdir}`, 'fsck', '--strict', '--no-dangling', '--no-progress'], {
    allowFail: true,
  });
  const output = `${result.stdout}${result.stderr}`;
  const problems = output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '' && !line.startsWith('dangling ') && !line.startsWith('notice: '));
  if (result.status !== 0 && problems.length === 0) problems.push(`git fsck exited with status ${result.status}`);
  return { status: result.status, problems, output };
}

/** Throws, listing fsck's whole output, unless the repository at gitdir is clean. */
export function expectFsckClean(gitdir: string): void {
  const report = fsckReport(gitdir);
  if (report.problems.length === 0) return;
  throw new Error(
    `git fsck --strict found problems in ${gitdir}:\n` +
      report.problems.map((line) => `  ${line}`).join('\n') +
      `\n--- full output (status ${report.status}) ---\n${report.output}`,
  );
}
