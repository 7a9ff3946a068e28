/**
 * Where the page merges a session (and rebases it onto): the branch the session was started
 * from when its base was recorded as a branch, else the branch HEAD names; never "the first
 * branch in alphabetical order" (a branch `archive/v0` would win). Session branches are not
 * targets: the page never offers them, and the API refuses them.
 */
import { ForgeError } from '../errors';
import { errnoCode, joinPath, refNameProblem, type Repository } from '../git';
import { SESSION_REF_PREFIX } from '../session';

const HEADS = 'refs/heads/';

/** The branch (short name) a revision names when it is exactly a branch that exists, else undefined. */
async function branchNamed(repo: Repository, revision: string | undefined): Promise<string | undefined> {
  if (revision === undefined || revision === 'HEAD') return undefined;
  const ref = revision.startsWith(HEADS) ? revision : `${HEADS}${revision}`;
  if (refNameProblem(ref) !== null || ref.startsWith(SESSION_REF_PREFIX)) return undefined;
  return (await repo.refs.resolve(ref)) === null ? undefined : ref.slice(HEADS.length);
}

/** The branch HEAD points at (short name), when it is an existing branch that is not a session's. */
export async function currentBranchName(repo: Repository): Promise<string | undefined> {
  let text: string;
  try {
    text = (await repo.fs.promises.readFile(joinPath(repo.gitdir, 'HEAD'), 'utf8')).trim();
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  return text.startsWith(`ref: ${HEADS}`) ? branchNamed(repo, text.slice('ref: '.length).trim()) : undefined;
}

/** The default merge and rebase target of a session whose state records `base`. */
export async function defaultTarget(repo: Repository, base: { ref?: string }): Promise<string | undefined> {
  return (await branchNamed(repo, base.ref)) ?? (await currentBranchName(repo));
}

/** Refuses a session's branch as the target of a merge or rebase from the page. */
export function assertNotSessionBranch(branch: string): void {
  const ref = branch.startsWith(HEADS) ? branch : `${HEADS}${branch}`;
  if (!ref.startsWith(SESSION_REF_PREFIX)) return;
  throw new ForgeError('MERGE_TARGET_INVALID', `${branch} is a session's branch: the inspector merges and rebases sessions onto ordinary branches only.`, {
    data: { into: branch },
    hint: 'Pick a branch that is not under forge/session/, or use forge merge on the command line.',
  });
}
