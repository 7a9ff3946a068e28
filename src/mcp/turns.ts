/**
 * Turns for MCP clients, which have no "end of turn": the server adds `commit_turn` (publish
 * the pending changes and the session file as ONE commit) and `session_status` (branch, head,
 * mode, pending changes with a diffstat). With auto-commit `every-call`, each successful call
 * of a tool with side effects is committed right after it.
 * Pending changes are journaled by the session's view as they are made, so a crashed client or
 * server loses nothing: the next server started on the same session finds them pending.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { filePatches, type FilePatch, type Session } from '../session';
import type { AnyToolDefinition, ToolResult } from '../tools';
import { COMMIT_TURN, SESSION_STATUS } from '../tools/reserved-names';
import { objectJsonSchema } from './tool-list';

export type AutoCommit = 'every-call' | 'explicit';

const count = z.number().int().nonnegative();
const changeKind = z.enum(['added', 'modified', 'deleted']);

export const CommitTurnInput = z.strictObject({
  message: z.string().optional().describe('The commit message. Default: a summary listing the changed files.'),
});

export const SessionStatusInput = z.strictObject({});

export const CommitTurnOutputSchema = z.strictObject({
  /** false when there was nothing to commit. */
  committed: z.boolean(),
  session: z.string(),
  branch: z.string(),
  /** The branch head after the call. */
  commit: z.string(),
  /** Turns committed on the branch so far. */
  turn: count,
  files: z.array(z.strictObject({ path: z.string(), kind: changeKind })),
  /** Secrets replaced by [REDACTED:rule] markers in the committed session state, per rule. */
  redactions: z.array(z.strictObject({ rule: z.string(), count: count })).optional(),
  message: z.string(),
});

export const SessionStatusOutputSchema = z.strictObject({
  session: z.string(),
  branch: z.string(),
  head: z.string(),
  base: z.string(),
  mode: z.enum(['restricted', 'unrestricted']),
  turn: count,
  auto_commit: z.enum(['every-call', 'explicit']),
  pending: z.strictObject({
    files: z.array(z.strictObject({ path: z.string(), kind: changeKind, added: count, removed: count, binary: z.boolean() })),
    insertions: count,
    deletions: count,
    /** Tool calls recorded since the last commit (they are committed with the next turn). */
    tool_calls: count,
  }),
  /** What Undo would revert, or null. */
  undo: z.string().nullable(),
});

/**
 * Under --auto-commit every-call, a tool that changes files reports the commit that followed it
 * in its structured result too (clients such as Claude Code and Codex give the model only
 * structuredContent): `commit` on success, `commit_error` (code, message, hint) when it failed and
 * the change stays pending.
 */
export const AutoCommitErrorSchema = z.strictObject({ code: z.string(), message: z.string(), hint: z.string().optional(), data: z.record(z.string(), z.unknown()).optional() });

export function withAutoCommitOutput(schema: z.ZodObject): z.ZodObject {
  return schema.extend({ commit: CommitTurnOutputSchema.optional(), commit_error: AutoCommitErrorSchema.optional() });
}

export type CommitTurnOutput = z.output<typeof CommitTurnOutputSchema>;
export type SessionStatusOutput = z.output<typeof SessionStatusOutputSchema>;

// Reserved in the tools layer, so a repository tool can never take them (tools/reserved-names.ts).
export { COMMIT_TURN, SESSION_STATUS };

/** " 2 secret(s) were redacted (aws-access-key ×1, github-token ×1)." or nothing. */
export function redactionNote(redactions: ReadonlyArray<{ rule: string; count: number }>): string {
  if (redactions.length === 0) return '';
  const total = redactions.reduce((n, r) => n + r.count, 0);
  return ` ${total} secret(s) were redacted from the committed conversation (${redactions.map((r) => `${r.rule} ×${r.count}`).join(', ')}).`;
}

/** The pending changes as unified diffs (what the pending-diff resource shows). */
export async function pendingPatches(session: Session): Promise<FilePatch[]> {
  return filePatches(session.repo, await session.vfs.diff());
}

export class TurnTools {
  constructor(
    readonly session: Session,
    readonly autoCommit: AutoCommit,
  ) {}

  descriptors(): Tool[] {
    const branch = this.session.branch;
    const auto =
      this.autoCommit === 'every-call'
        ? ' This server commits every successful call of a tool that changes files right after it; commit_turn commits what is left (such as the record of read-only calls).'
        : '';
    return [
      {
        name: COMMIT_TURN,
        description:
          `Commit the pending changes of this session as ONE commit on its branch ${branch}, together with the session file (the record of this turn's tool calls). ` +
          'Call it when a unit of work is done: until then your changes are pending (kept safely, but not on the branch). ' +
          `\`message\` is the commit message (default: a summary listing the changed files). With nothing pending, nothing is committed.${auto}`,
        inputSchema: objectJsonSchema(CommitTurnInput, 'input'),
        outputSchema: objectJsonSchema(CommitTurnOutputSchema, 'output'),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      {
        name: SESSION_STATUS,
        description:
          `Show this session: its branch (${branch}), head commit, mode, committed turns, and the pending (not yet committed) changes with a diffstat (lines added and removed per file).`,
        inputSchema: objectJsonSchema(SessionStatusInput, 'input'),
        outputSchema: objectJsonSchema(SessionStatusOutputSchema, 'output'),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
    ];
  }

  private callsThisTurn(): number {
    return this.session.state.toolCalls.filter((c) => c.turn === this.session.currentTurn).length;
  }

  async commit(message?: string): Promise<CommitTurnOutput> {
    const { session } = this;
    const pending = await session.vfs.diff();
    const messagesThisTurn = session.state.messages.some((m) => m.turn === session.currentTurn);
    if (pending.length === 0 && this.callsThisTurn() === 0 && !messagesThisTurn) {
      return {
        committed: false,
        session: session.id,
        branch: session.branch,
        commit: session.head,
        turn: session.state.turn,
        files: [],
        message: `Nothing to commit: ${session.branch} is at ${session.head.slice(0, 12)} (turn ${session.state.turn}).`,
      };
    }
    const turn = await session.commitTurn(message !== undefined ? { message } : {});
    const files = turn.changes.map((c) => ({ path: c.path, kind: c.kind }));
    return {
      committed: true,
      session: session.id,
      branch: session.branch,
      commit: turn.commit,
      turn: turn.turn,
      files,
      ...(turn.redactions.length > 0 ? { redactions: turn.redactions } : {}),
      message: `Committed turn ${turn.turn} as ${turn.commit.slice(0, 12)} on ${session.branch} (${files.length} file${files.length === 1 ? '' : 's'} changed).${redactionNote(turn.redactions)}`,
    };
  }

  /** Whether this call must be followed by a commit (auto-commit every-call). */
  commitsAfter(tool: AnyToolDefinition | undefined, result: ToolResult): boolean {
    return this.autoCommit === 'every-call' && result.ok && tool?.sideEffects === true;
  }

  async status(): Promise<SessionStatusOutput> {
    const { session } = this;
    const patches = await pendingPatches(session);
    return {
      session: session.id,
      branch: session.branch,
      head: session.head,
      base: session.state.base.commit,
      mode: session.state.mode,
      turn: session.state.turn,
      auto_commit: this.autoCommit,
      pending: {
        files: patches.map((p) => ({ path: p.path, kind: p.kind, added: p.added, removed: p.removed, binary: p.binary })),
        insertions: patches.reduce((n, p) => n + p.added, 0),
        deletions: patches.reduce((n, p) => n + p.removed, 0),
        tool_calls: this.callsThisTurn(),
      },
      undo: session.state.undo?.summary ?? null,
    };
  }
}

const KIND_LETTER = { added: 'A', modified: 'M', deleted: 'D' } as const;

/** git-style: one line per file, then the totals. */
export function renderStatus(status: SessionStatusOutput): string {
  const lines = [
    `session ${status.session} on ${status.branch} at ${status.head.slice(0, 12)}: ${status.turn} turn${status.turn === 1 ? '' : 's'} committed, mode ${status.mode}, auto-commit ${status.auto_commit}`,
  ];
  const { files } = status.pending;
  if (files.length === 0) {
    lines.push(`No pending file changes${status.pending.tool_calls > 0 ? ` (${status.pending.tool_calls} tool call(s) recorded since the last commit)` : ''}.`);
  } else {
    lines.push('Pending changes (not committed yet; call commit_turn to commit them):');
    const width = Math.max(...files.map((f) => f.path.length));
    for (const f of files) lines.push(` ${KIND_LETTER[f.kind]} ${f.path.padEnd(width)} | ${f.binary ? 'binary' : `+${f.added} -${f.removed}`}`);
    lines.push(`${files.length} file${files.length === 1 ? '' : 's'} changed, ${status.pending.insertions} insertion(s)(+), ${status.pending.deletions} deletion(s)(-); ${status.pending.tool_calls} tool call(s) since the last commit`);
  }
  if (status.undo !== null) lines.push(`Undo would revert: ${status.undo}`);
  return lines.join('\n');
}
