/**
 * `forge tools approve <name>`: records the tool's source hash in `.forge/approved_tools.json`
 * as a commit of its own (that file and nothing else) on the current branch, or on a session
 * branch, and in this machine's trust list (`trust.ts`). The repository is never left with an
 * uncommitted approval. This is a person's command: nothing here is reachable from a tool call
 * (tools cannot write under .forge/ nor the git directory). An approval already committed
 * (arriving from upstream) is confirmed into the trust list without a new commit.
 */
import { BranchUpdate, type WorktreeSync } from '../../branches';
import { ForgeError } from '../../errors';
import { buildTree, errnoCode, joinPath, type Repository, type Signature } from '../../git';
import { parseTrailers, sessionRef, turnCommitMessage, validateSessionId } from '../../session';
import { CommitVfs, FsJournal } from '../../vfs';
import { APPROVALS_PATH, serializeApprovals, withApproval, type Approval } from './approvals';
import { readApprovals, readToolSource, toolStatus, type RepoToolStatus } from './discover';
import { LocalToolTrust } from './trust';

export interface ApproveOptions {
  name: string;
  /** Approve on forge/session/<id> instead of the branch HEAD points at. */
  session?: string;
  /** Built-in tool names: a repository tool may not take one. */
  reservedNames: ReadonlySet<string>;
  hash: (bytes: Uint8Array) => Promise<string>;
  /** Brings a checked-out branch's index and files along (Node: nodeWorktreeSync()). */
  worktree?: WorktreeSync;
  /**
   * The SHA-256 the person reviewed (what `forge tools diff` / `tools list` showed): the
   * approval is refused (TOOL_CHANGED_SINCE_REVIEW) when the source differs from it.
   */
  expectedSha256?: string;
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
  /** The approval was newly recorded in this machine's trust list. */
  trusted: boolean;
  /** An approval committed by someone else (upstream) was confirmed here, without a commit. */
  confirmedUpstream: boolean;
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
  const trust = new LocalToolTrust(repo);
  if (options.expectedSha256 !== undefined && !/^[0-9a-f]{64}$/.test(options.expectedSha256)) {
    throw new ForgeError('INVALID_ARGUMENT', `--sha256 ${JSON.stringify(options.expectedSha256)} is not a SHA-256: give the 64 hexadecimal digits forge tools diff ${name} shows.`, {
      data: { tool: name },
    });
  }
  const status: RepoToolStatus = await toolStatus(name, await readToolSource(view, name), approvals, options.reservedNames, options.hash, trust);
  if (options.expectedSha256 !== undefined && options.expectedSha256 !== status.sha256) {
    throw new ForgeError('TOOL_CHANGED_SINCE_REVIEW', `${status.path} is not the source you reviewed: it has SHA-256 ${status.sha256} now (at ${head.slice(0, 12)} on ${ref}), you reviewed ${options.expectedSha256}. Nothing was approved.`, {
      data: { tool: name, path: status.path, sha256: status.sha256, expectedSha256: options.expectedSha256, ref, head },
      hint: `Review it again (forge tools diff ${name}${options.session !== undefined ? ` --session ${options.session}` : ''}) and approve the hash it shows.`,
    });
  }
  if (status.state === 'refused') {
    throw new ForgeError('TOOL_NAME_CONFLICT', `${status.path} cannot be approved: ${status.problem}.`, {
      data: { tool: name, path: status.path },
      hint: 'Rename the file: a repository tool may not take a built-in tool\'s name or a reserved one.',
    });
  }
  const previousSha256 = status.approval?.sha256 ?? null;
  if (status.state === 'approved') {
    return { tool: name, path: status.path, sha256: status.sha256, ref, commit: null, trusted: false, confirmedUpstream: false, previousSha256, approval: status.approval! };
  }
  const now = options.now ?? repo.now();
  const who = await repo.identity(options.approver ?? {}, now);
  const blob = (await view.stat(status.path))!.oid;
  const approval: Approval = { sha256: status.sha256, blob, approvedBy: `${who.name} <${who.email}>`, approvedAt: now.toISOString() };
  const trustHere = () => trust.add({ tool: name, sha256: status.sha256, blob, trustedBy: approval.approvedBy, trustedAt: approval.approvedAt });
  if (status.state === 'untrusted') {
    // Committed already (by someone, somewhere): the audit record stays as it is; this person's word is recorded here.
    await trustHere();
    return { tool: name, path: status.path, sha256: status.sha256, ref, commit: null, trusted: true, confirmedUpstream: true, previousSha256, approval: status.approval! };
  }

  const update = await BranchUpdate.prepare(repo, ref, head, options.worktree);
  let commit: string;
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
    commit = await repo.writeCommit({ tree, parents: [head], author: who, committer: who, message });
    await update.move({ ref, expectedOid: head, newOid: commit, committer: who, reflogMessage: `forge: ${subject}` }, tree);
  } catch (error) {
    await update.abandon();
    throw error;
  }
  // After the commit: a refused move (the branch moved since it was read) trusts nothing.
  await trustHere();
  return { tool: name, path: status.path, sha256: status.sha256, ref, commit, trusted: true, confirmedUpstream: false, previousSha256, approval };
}
