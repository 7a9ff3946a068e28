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
  /** Who approved the current source on this machine (state approved). */
  trustedBy?: string;
  trustedAt?: string;
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
  if (status.trust) Object.assign(out, { trustedBy: status.trust.trustedBy, trustedAt: status.trust.trustedAt });
  if (status.problem) out.problem = status.problem;
  return out;
}

export interface ToolDiff {
  tool: string;
  path: string;
  state: RepoToolState;
  sha256: string;
  approvedSha256: string | null;
  /** Who approved upstream (the committed record), when someone did. */
  approvedBy: string | null;
  /**
   * What the diff starts from: the committed approval's source (changed), the source last
   * approved on this machine (untrusted: an upstream approval is reviewed against what this
   * person trusted before), or nothing (the whole file).
   */
  base: 'approved' | 'trusted-here' | 'none';
  /** Unified diff from the base to the current source ('' when approved as it is). */
  diff: string;
}

export async function diffTool(repoTools: RepoTools, vfs: Vfs, readBlob: (oid: string) => Promise<Uint8Array>, name: string): Promise<ToolDiff> {
  const source = await readToolSource(vfs, name);
  const status = await toolStatus(name, source, await readApprovals(vfs), repoTools.reservedNames, (b) => repoTools.hashOf(b), repoTools.trust);
  const decoder = new TextDecoder();
  let baseBlob: string | null = null;
  let base: ToolDiff['base'] = 'none';
  if (status.state === 'changed' && status.approval) [baseBlob, base] = [status.approval.blob, 'approved'];
  if (status.state === 'untrusted') {
    const previous = await repoTools.trust.latest(name);
    if (previous) [baseBlob, base] = [previous.blob, 'trusted-here'];
  }
  // A blob the trust list names may be gone from this repository (gc): then the whole file.
  const before = baseBlob === null ? null : await readBlob(baseBlob).then((b) => decoder.decode(b), () => ((base = 'none'), null));
  const after = decoder.decode(source);
  return {
    tool: name,
    path: status.path,
    state: status.state,
    sha256: status.sha256,
    approvedSha256: status.approval?.sha256 ?? null,
    approvedBy: status.approval?.approvedBy ?? null,
    base,
    diff: status.state === 'approved' ? '' : unifiedDiff(status.path, before, after),
  };
}
