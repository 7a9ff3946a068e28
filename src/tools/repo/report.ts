/**
 * What `forge tools list` and `forge tools diff` show: every tool with its kind and state, and
 * for a repository tool the difference between the approved source and the current one.
 */
import { unifiedDiff } from '../../text/unified-diff';
import type { Vfs } from '../../vfs/types';
import type { AnyToolDefinition } from '../define';
import { readApprovals, readToolSource, toolStatus, type RepoToolState, type RepoToolStatus } from './discover';
import type { RepoTools } from './repo-tools';

export interface ToolListing {
  name: string;
  kind: 'builtin' | 'repository';
  /** Built-ins are always available. */
  state: 'builtin' | RepoToolState;
  description?: string;
  path?: string;
  sha256?: string;
  approvedSha256?: string;
  approvedBy?: string;
  approvedAt?: string;
  problem?: string;
}

export async function listTools(base: readonly AnyToolDefinition[], repoTools: RepoTools, vfs: Vfs): Promise<ToolListing[]> {
  const out: ToolListing[] = base.map((t) => ({ name: t.name, kind: 'builtin', state: 'builtin', description: t.description.split('\n')[0]! }));
  for (const status of await repoTools.scan(vfs)) out.push(listing(status));
  return out;
}

function listing(status: RepoToolStatus): ToolListing {
  const out: ToolListing = { name: status.name, kind: 'repository', state: status.state, path: status.path, sha256: status.sha256 };
  if (status.approval) Object.assign(out, { approvedSha256: status.approval.sha256, approvedBy: status.approval.approvedBy, approvedAt: status.approval.approvedAt });
  if (status.problem) out.problem = status.problem;
  return out;
}

export interface ToolDiff {
  tool: string;
  path: string;
  state: RepoToolState;
  sha256: string;
  approvedSha256: string | null;
  /** Unified diff from the approved source to the current one ('' when unchanged; the whole file when never approved). */
  diff: string;
}

export async function diffTool(repoTools: RepoTools, vfs: Vfs, readBlob: (oid: string) => Promise<Uint8Array>, name: string): Promise<ToolDiff> {
  const source = await readToolSource(vfs, name);
  const status = await toolStatus(name, source, await readApprovals(vfs), repoTools.reservedNames, (b) => repoTools.hashOf(b));
  const decoder = new TextDecoder();
  const before = status.approval ? decoder.decode(await readBlob(status.approval.blob)) : null;
  const after = decoder.decode(source);
  return {
    tool: name,
    path: status.path,
    state: status.state,
    sha256: status.sha256,
    approvedSha256: status.approval?.sha256 ?? null,
    diff: status.state === 'approved' ? '' : unifiedDiff(status.path, before, after),
  };
}
