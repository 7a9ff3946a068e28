/** forge session new | list | discard */
import type { Command } from 'commander';
import { SessionModeSchema } from '../../session';
import { emit, shortOid, type CommonOptions } from '../io';
import { openStore } from '../open';
import { common } from '../common';

export function registerSession(program: Command): void {
  const session = program.command('session').description('create, list and manage agent sessions');

  common(session.command('new'))
    .description('start a session on a new branch forge/session/<id>')
    .option('--base <ref>', 'revision to start from', 'HEAD')
    .option('--id <id>', 'session id (default: a new UUID)')
    .option('--mode <mode>', 'restricted (read-only tools) or unrestricted', 'unrestricted')
    .action(async (options: CommonOptions & { base: string; id?: string; mode: string }) => {
      const store = await openStore(options);
      const created = await store.create({ base: options.base, mode: SessionModeSchema.parse(options.mode), ...(options.id ? { id: options.id } : {}) });
      const result = { id: created.id, branch: created.branch, base: created.state.base.commit, head: created.head };
      emit(options, result, () => `${created.id}\nbranch ${created.branch}\nbase   ${created.state.base.commit}`);
    });

  common(session.command('list'))
    .description('list sessions (branches forge/session/*)')
    .action(async (options: CommonOptions) => {
      const sessions = await (await openStore(options)).list();
      emit(options, { sessions }, () =>
        sessions.length === 0
          ? 'No sessions.'
          : sessions.map((s) => `${s.id}  turn ${s.turn}  ${shortOid(s.head)}  ${s.updatedAt}${s.parent ? `  (resumed from ${s.parent.session} turn ${s.parent.turn})` : ''}`).join('\n'),
      );
    });

  common(session.command('discard <id>'))
    .description('drop the pending (uncommitted) changes of a session')
    .action(async (id: string, options: CommonOptions) => {
      const opened = await (await openStore(options)).open(id);
      const changes = await opened.vfs.diff();
      await opened.discardPending();
      emit(options, { session: id, discarded: changes.map((c) => c.path) }, () => `Discarded ${changes.length} pending change(s) of ${id}.`);
    });
}
