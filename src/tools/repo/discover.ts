/**
 * Finding repository tools in a view: every `tools/<name>.js`, its source's SHA-256 and its
 * state against `.forge/approved_tools.json` in the same view. A tool is approved only while
 * its source hashes to what was approved, so any change to the file (by a person or an agent's
 * write_file) un-approves it.
 */
import { ForgeError } from '../../errors';
import type { Vfs } from '../../vfs/types';
import { TOOL_NAME_PATTERN } from '../json-schema';
import { isReservedToolName } from '../reserved-names';
import { APPROVALS_PATH, approvalOf, parseApprovals, type Approval, type ApprovalsFile } from './approvals';
import type { ToolTrust, TrustEntry } from './trust';

export const REPO_TOOLS_DIR = 'tools';

/**
 * approved: the committed approval and the local trust list both name the current source;
 * untrusted: the committed approval matches, but no person approved it on this machine
 * (it arrived by fetch, pull, merge or a plain git commit); changed: the source differs from
 * the committed approval; unapproved: no committed approval; refused: the name is not allowed.
 */
export type RepoToolState = 'approved' | 'untrusted' | 'changed' | 'unapproved' | 'refused';

export interface RepoToolStatus {
  name: string;
  path: string;
  sha256: string;
  state: RepoToolState;
  /** The approval on record (state approved, untrusted or changed). */
  approval?: Approval;
  /** This machine's approval of the current source (state approved). */
  trust?: TrustEntry;
  /** Why a refused tool cannot be used. */
  problem?: string;
}

export function repoToolPath(name: string): string {
  return `${REPO_TOOLS_DIR}/${name}.js`;
}

async function readOptional(vfs: Vfs, path: string): Promise<Uint8Array | null> {
  const stat = await vfs.stat(path);
  return stat?.type === 'file' ? vfs.readFile(path) : null;
}

export async function readApprovals(vfs: Vfs): Promise<ApprovalsFile> {
  return parseApprovals(await readOptional(vfs, APPROVALS_PATH));
}

/** Why a name cannot be a repository tool, or null. */
export function nameProblem(name: string, reservedNames: ReadonlySet<string>): string | null {
  if (!TOOL_NAME_PATTERN.test(name)) return 'the name must be 1-64 characters of a-zA-Z0-9_-';
  if (isReservedToolName(name, reservedNames)) return `${name} is the name of a built-in tool`;
  // JSON parsers (zod's records among them) drop or mishandle this key, so its approval could not be kept.
  if (name === '__proto__') return '__proto__ is reserved: it cannot be a key of the approvals file';
  return null;
}

export function stateOf(name: string, sha256: string, approvals: ApprovalsFile, problem: string | null, trusted: boolean): RepoToolStatus['state'] {
  if (problem !== null) return 'refused';
  const approval = approvalOf(approvals, name);
  if (approval === undefined) return 'unapproved';
  if (approval.sha256 !== sha256) return 'changed';
  return trusted ? 'approved' : 'untrusted';
}

/** The status of one tool from its source bytes. */
export async function toolStatus(
  name: string,
  source: Uint8Array,
  approvals: ApprovalsFile,
  reservedNames: ReadonlySet<string>,
  hash: (bytes: Uint8Array) => Promise<string>,
  trust: ToolTrust,
): Promise<RepoToolStatus> {
  const sha256 = await hash(source);
  const problem = nameProblem(name, reservedNames);
  const trusted = problem === null ? await trust.trusted(name, sha256) : undefined;
  const status: RepoToolStatus = { name, path: repoToolPath(name), sha256, state: stateOf(name, sha256, approvals, problem, trusted !== undefined) };
  const approval = approvalOf(approvals, name);
  if (approval !== undefined && problem === null) status.approval = approval;
  if (trusted !== undefined && status.state === 'approved') status.trust = trusted;
  if (problem !== null) status.problem = problem;
  return status;
}

/** Every tools/*.js of the view (files directly in tools/), sorted by name. */
export async function scanRepoTools(vfs: Vfs, reservedNames: ReadonlySet<string>, hash: (bytes: Uint8Array) => Promise<string>, trust: ToolTrust): Promise<RepoToolStatus[]> {
  const dir = await vfs.stat(REPO_TOOLS_DIR);
  if (dir?.type !== 'directory') return [];
  const approvals = await readApprovals(vfs);
  const out: RepoToolStatus[] = [];
  for (const entry of await vfs.list(REPO_TOOLS_DIR)) {
    if (entry.type !== 'file' || !entry.name.endsWith('.js')) continue;
    out.push(await toolStatus(entry.name.slice(0, -3), await vfs.readFile(entry.path), approvals, reservedNames, hash, trust));
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The source of tools/<name>.js, or REPO_TOOL_NOT_FOUND. */
export async function readToolSource(vfs: Vfs, name: string): Promise<Uint8Array> {
  const path = repoToolPath(name);
  const bytes = TOOL_NAME_PATTERN.test(name) ? await readOptional(vfs, path) : null;
  if (bytes === null) {
    throw new ForgeError('REPO_TOOL_NOT_FOUND', `There is no repository tool ${JSON.stringify(name)} (no file ${path}).`, {
      data: { tool: name, path },
      hint: `Repository tools are ES modules at ${REPO_TOOLS_DIR}/<name>.js; list them with forge tools list.`,
    });
  }
  return bytes;
}

/** TOOL_NOT_APPROVED for a status that is not approved, naming the hash it has and the approved one. */
export function notApprovedError(status: RepoToolStatus): ForgeError {
  const approved = status.approval?.sha256 ?? null;
  const why =
    approved === null
      ? `it was never approved (its source has SHA-256 ${status.sha256})`
      : status.state === 'untrusted'
        ? `it is approved upstream by ${status.approval!.approvedBy} (${APPROVALS_PATH}), not trusted here: no person approved SHA-256 ${status.sha256} on this machine`
        : `its source changed since it was approved: it has SHA-256 ${status.sha256}, the approved source had ${approved}`;
  return new ForgeError('TOOL_NOT_APPROVED', `Repository tool ${status.name} (${status.path}) cannot run: ${why}. Nothing was changed.`, {
    data: { tool: status.name, path: status.path, sha256: status.sha256, approvedSha256: approved },
    hint: `A person must review ${status.path} (forge tools diff ${status.name}) and approve it with forge tools approve ${status.name} --sha256 ${status.sha256} (--session <id> for a session branch). Do not call it again until then; continue with the built-in tools or end the turn and say it needs approval.`,
  });
}
