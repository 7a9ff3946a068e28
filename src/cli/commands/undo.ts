/** forge undo --session <id> : revert the session's last edit as a commit of its own. */
import type { Command } from 'commander';
import { SessionToolRunner } from '../../agent/tool-calls';
import { ForgeError } from '../../errors';
import { allowAll, DEFAULT_TOOLS_CONFIG } from '../../tools';
import { common } from '../common';
import { emit, shortOid, type CommonOptions } from '../io';
import { openStore } from '../open';
import { loadSettings } from '../settings';

export function registerUndo(program: Command): void {
  common(program.command('undo'))
    .description("revert the session's last edit (hash-verified) with a commit on its branch")
    .requiredOption('--session <id>', 'the session')
    .action(async (options: CommonOptions & { session: string }) => {
      const store = await openStore(options);
      const session = await store.open(options.session);
      // A copy directory of the session (forge mount --copy): what changed there is pending, like any edit.
      const { CopyMount } = await import('../../mount/node/copy-mount');
      const { denied_paths } = loadSettings(store.repo.workdir, {});
      const copy = await CopyMount.find(session, denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths } : DEFAULT_TOOLS_CONFIG);
      await copy?.sync();
      const pending = await session.vfs.diff();
      if (pending.length > 0) {
        throw new ForgeError('SESSION_HAS_PENDING', `Session ${session.id} has ${pending.length} uncommitted change(s); commit them with "forge turn" or drop them with "forge session discard" before undoing.`, {
          data: { session: session.id, paths: pending.map((c) => c.path) },
        });
      }
      const entry = session.state.undo;
      // Whether the turn in progress holds anything (messages, calls) a refusal must not drop.
      const turnWasEmpty = ![...session.state.messages, ...session.state.toolCalls].some((r) => r.turn === session.currentTurn);
      // A person asked for this undo: approving it is theirs to do, which they just did.
      const result = await new SessionToolRunner(session, { approval: allowAll }).call({ tool: 'Undo' });
      if (!result.ok) {
        // The refused call was journaled as the start of a turn nobody will commit; left behind,
        // that journal would pin the session to this head after the branch moves on.
        if (turnWasEmpty) await session.discardPending();
        throw new ForgeError(result.error.code, result.error.message, {
          ...(result.error.data ? { data: result.error.data } : {}),
          ...(result.error.hint !== undefined ? { hint: result.error.hint } : {}),
        });
      }
      const turn = await session.commitTurn({ message: `Undo: ${entry!.summary}` });
      await copy?.writeBack();
      const output = result.output as { reverted: number; paths: string[] };
      emit(options, { session: session.id, commit: turn.commit, turn: turn.turn, reverted: output.reverted, paths: output.paths }, () =>
        `Reverted ${output.reverted} file(s): ${output.paths.join(', ')}\ncommitted ${shortOid(turn.commit)} on ${session.branch} (turn ${turn.turn})`,
      );
    });
}
