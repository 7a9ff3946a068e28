/**
 * `forge tools approve <name>`: records the tool's source hash in `.forge/approved_tools.json`
 * as a commit of its own (that file and nothing else) on the current branch, or on a session
 * branch. The repository is never left with an uncommitted approval. This is a person's
 * command: nothing here is reachable from a tool call (tools cannot write under .forge/).
 */
import { BranchUpdate, type WorktreeSync } from '../../branches';
import { ForgeError } from '../../errors';
import { buildTree, errnoCode, joinPath, type Repository, type Signature } from '../../git';
import { parseTrailers, sessionRef, turnCommitMessage, validateSessionId } from '../../session';
import { CommitVfs, FsJournal } from '../../vfs';
import { APPROVALS_PATH, serializeApprovals, withApproval, type Approval } from './approvals';
import { readApprovals, readToolSource, toolStatus, type RepoToolStatus } from './discover';

export interface ApproveOptions {
  name: string;
  /** Approve on forge/session/<id> instead of the branch HEAD points at. */
  session?: string;
  /** Built-in tool names: a repository tool may not take one. */
  reservedNames: ReadonlySet<string>;
  hash: (bytes: Uint8Array) => Promise<string>;
  /** Brings a checked-out branch's index and files along (Node: nodeWorktreeSync()). */
  worktree?: WorktreeSync;
  /** Who approves; default: the repository's user.name/user.email. */
  approver?: Partial<Signature>;
  now?: Date;
}

export interface ApproveResult {
  tool: string;
  path: string;
  sha256: string;
  ref: string;
  /** The approval commit; null when the tool was already approved as it is (nothing committed). */
  commit: string | null;
  previousSha256: string | null;
  approval: Approval;
}

/** The branch HEAD points at (refs/heads/...), or INVALID_ARGUMENT for a detached HEAD. */
export async function currentBranch(repo: Repository): Promise<string> {
  let text: string;
  try {
    text = (await repo.fs.promises.readFile(joinPath(repo.gitdir, 'HEAD'), 'utf8')).trim();
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') text = '';
    else throw error;
  }
  if (!text.startsWith('ref: refs/heads/')) {
    throw new ForgeError('INVALID_ARGUMENT', 'HEAD is not on a branch, so there is no current branch to commit the approval to.', {
      hint: 'Check out a branch, or approve on a session branch with --session <id>.',
    });
  }
  return text.slice(5).trim();
}

/** The view a command about repository tools looks at: a session branch's head, else HEAD. */
export async function approvalTarget(repo: Repository, session: string | undefined): Promise<{ ref: string; head: string }> {
  const ref = session === undefined ? await currentBranch(repo) : sessionRef(validateSessionId(session));
  const head = await repo.refs.resolve(ref);
  if (head === null) {
    // A session's data carries its id, so the CLI words it as every command does ("did you mean s1?").
    throw new ForgeError(session === undefined ? 'REF_NOT_FOUND' : 'SESSION_NOT_FOUND', session === undefined ? `${ref} has no commit yet.` : `No session ${session}.`, {
      data: session === undefined ? { ref } : { ref, id: session },
    });
  }
  return { ref, head };
}

export async function approveRepoTool(repo: Repository, options: ApproveOptions): Promise<ApproveResult> {
  const { name } = options;
  const { ref, head } = await approvalTarget(repo, options.session);
  if (options.session !== undefined) {
    // Committing under a pending turn would turn its journal into a lost race.
    const pending = await new FsJournal(repo.fs, repo.commonDir, options.session).load();
    if (pending !== null && pending.changes.size > 0) {
      throw new ForgeError('SESSION_HAS_PENDING', `Session ${options.session} has an uncommitted turn; the approval would be committed under it.`, {
        data: { session: options.session },
        hint: `Commit the turn (forge turn --session ${options.session} --commit) or discard it (forge session discard ${options.session}), then approve.`,
      });
    }
  }
  const headCommit = await repo.readCommit(head);
  const view = new CommitVfs(repo, head, headCommit.tree);
  const approvals = await readApprovals(view);
  const status: RepoToolStatus = await toolStatus(name, await readToolSource(view, name), approvals, options.reservedNames, options.hash);
  if (status.state === 'refused') {
    throw new ForgeError('TOOL_NAME_CONFLICT', `${status.path} cannot be approved: ${status.problem}.`, {
      data: { tool: name, path: status.path },
      hint: 'Rename the file: a repository tool may not take a built-in tool\'s name or a reserved one.',
    });
  }
  const previousSha256 = status.approval?.sha256 ?? null;
  if (status.state === 'approved') {
    return { tool: name, path: status.path, sha256: status.sha256, ref, commit: null, previousSha256, approval: status.approval! };
  }
  const now = options.now ?? repo.now();
  const who = await repo.identity(options.approver ?? {}, now);
  const blob = (await view.stat(status.path))!.oid;
  const approval: Approval = { sha256: status.sha256, blob, approvedBy: `${who.name} <${who.email}>`, approvedAt: now.toISOString() };

  const update = await BranchUpdate.prepare(repo, ref, head, options.worktree);
  try {
    const blob = await repo.writeBlob(serializeApprovals(withApproval(approvals, name, approval)), { keep: false });
    const tree = await buildTree(repo, headCommit.tree, [[APPROVALS_PATH, { oid: blob, mode: '100644' }]]);
    const subject = `Approve repository tool ${name}`;
    const body = `${subject}\n\n${status.path} SHA-256 ${status.sha256}${previousSha256 ? `\n(previously approved: ${previousSha256})` : ''}`;
    const trailers = parseTrailers(headCommit.message);
    // On a session branch, the session's trailers keep the commit in the session's log.
    const message =
      options.session !== undefined
        ? turnCommitMessage({ sessionId: options.session, turn: Number(trailers['Forge-Turn'] ?? 0), message: body, changedPaths: [APPROVALS_PATH] })
        : `${body}\n`;
    const commit = await repo.writeCommit({ tree, parents: [head], author: who, committer: who, message });
    await update.move({ ref, expectedOid: head, newOid: commit, committer: who, reflogMessage: `forge: ${subject}` }, tree);
    return { tool: name, path: status.path, sha256: status.sha256, ref, commit, previousSha256, approval };
  } catch (error) {
    await update.abandon();
    throw error;
  }
}
