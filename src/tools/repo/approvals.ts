/**
 * `.forge/approved_tools.json`: which repository tools a person approved, by the SHA-256 of
 * their source. Pure parsing and editing; reading and committing the file is done elsewhere.
 * The file lives under `.forge/`, which the path sandbox reserves, so no tool call can write it.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';

export const APPROVALS_PATH = '.forge/approved_tools.json';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ApprovalSchema = z.strictObject({
  sha256: Sha256,
  /** The git blob of the approved source: what `forge tools diff` compares the current source with. */
  blob: z.string().regex(/^[0-9a-f]{40}$/),
  /** "Name <email>" of the person who approved. */
  approvedBy: z.string(),
  /** ISO 8601. */
  approvedAt: z.string(),
});

export const ApprovalsFileSchema = z.strictObject({
  version: z.literal(1),
  tools: z.record(z.string(), ApprovalSchema),
});

export type Approval = z.output<typeof ApprovalSchema>;
export type ApprovalsFile = z.output<typeof ApprovalsFileSchema>;

export const EMPTY_APPROVALS: ApprovalsFile = { version: 1, tools: {} };

/** Parses the file's bytes (null: no file, nothing approved). A damaged file approves nothing and says so. */
export function parseApprovals(bytes: Uint8Array | null): ApprovalsFile {
  if (bytes === null) return EMPTY_APPROVALS;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalidFile('it is not UTF-8 JSON');
  }
  const result = ApprovalsFileSchema.safeParse(json);
  if (!result.success) throw invalidFile(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  return result.data;
}

function invalidFile(problem: string): ForgeError {
  return new ForgeError('INVALID_ARGUMENT', `${APPROVALS_PATH} is not a valid approvals file: ${problem}.`, {
    data: { path: APPROVALS_PATH },
    hint: `Fix or remove ${APPROVALS_PATH} in a commit of your own, then approve the tools again with forge tools approve <name>.`,
  });
}

/** Stable bytes: tools sorted by name, two-space indentation, final newline (reviewable diffs). */
export function serializeApprovals(file: ApprovalsFile): Uint8Array {
  // fromEntries defines own properties, so a tool named like an Object.prototype key (`__proto__`) is kept.
  const tools = Object.fromEntries(
    Object.keys(file.tools)
      .sort()
      .map((name) => {
        const a = file.tools[name]!;
        return [name, { sha256: a.sha256, blob: a.blob, approvedBy: a.approvedBy, approvedAt: a.approvedAt }];
      }),
  );
  return new TextEncoder().encode(`${JSON.stringify({ version: 1, tools }, null, 2)}\n`);
}

export function withApproval(file: ApprovalsFile, name: string, approval: Approval): ApprovalsFile {
  return { version: 1, tools: Object.fromEntries([...Object.entries(file.tools).filter(([n]) => n !== name), [name, approval]]) };
}

/** The approval recorded for a tool: own entries only (`constructor` or `__proto__` is never inherited). */
export function approvalOf(file: ApprovalsFile, name: string): Approval | undefined {
  return Object.hasOwn(file.tools, name) ? file.tools[name] : undefined;
}
