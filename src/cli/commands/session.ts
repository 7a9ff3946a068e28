/** forge session new | list | discard */
import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { SessionMode, SessionStore } from '../../session';
import { paint } from '../color';
import { cliGlobals } from '../globals';
import { emit, shortOid, type CommonOptions } from '../io';
import { DATE_STYLES, formatTime, type DateStyle } from '../time';
import { openStore } from '../open';
import { loadSettings } from '../settings';
import { common } from '../common';
import { registerSessionPull, remoteStatusText } from './fetch';
import { remoteSessionStatus } from '../../remote';

export function registerSession(program: Command): void {
  const session = program.command('session').description('create, list and manage agent sessions');

  common(session.command('new'))
    .description('start a session on a new branch forge/session/<id>')
    .option('--base <ref>', 'revision to start from', 'HEAD')
    .option('--id <id>', 'session id (default: a new UUID)')
    .addOption(new Option('--mode <mode>', 'restricted (read-only tools) or unrestricted (default: the configured mode, else unrestricted)').choices(['restricted', 'unrestricted']))
    .action(async (options: CommonOptions & { base: string; id?: string; mode?: SessionMode }) => {
      const store = await openStore(options);
      const settings = loadSettings(store.repo.workdir, options.mode !== undefined ? { mode: options.mode } : {});
      const created = await store.create({ base: options.base, mode: settings.mode ?? 'unrestricted', ...(options.id !== undefined ? { id: options.id } : {}) });
      const result = { id: created.id, branch: created.branch, base: created.state.base.commit, head: created.head };
      // The id is what a script needs (--quiet prints only it).
      emit(options, result, () => (cliGlobals.quiet ? created.id : `${created.id}\nbranch ${created.branch}\nbase   ${created.state.base.commit}`));
    });

  common(session.command('list'))
    .description('list sessions (branches forge/session/*)')
    .addOption(new Option('--date <style>', 'how times are written: iso (UTC), local or relative').choices(DATE_STYLES).default('iso'))
    .action(async (options: CommonOptions & { date: DateStyle }) => {
      const store = await openStore(options);
      const sessions = await store.list();
      const remote = await remoteSessionStatus(store.repo);
      emit(options, { sessions, remote }, () =>
        (sessions.length === 0
          ? 'No sessions.'
          : sessions
              .map((s) => `${s.id}  turn ${s.turn}  ${paint.yellow(shortOid(s.head))}  ${s.updatedAt ? formatTime(s.updatedAt, options.date) : ''}${s.parent ? `  (resumed from ${s.parent.session} turn ${s.parent.turn})` : ''}`)
              .join('\n')) + remoteStatusText(remote),
      );
    });

  registerSessionPull(session);

  common(session.command('discard <id>'))
    .description('drop the pending (uncommitted) changes of a session (works on a damaged journal too)')
    .option('--force', 'also when another process holds the session: its next write fails and reloads the branch head')
    .action(async (id: string, options: CommonOptions & { force?: boolean }) => {
      const result = await (await openStore(options)).discard(id, { force: options.force === true });
      emit(options, { session: id, discarded: result.discarded, scratch_removed: result.scratchRemoved, ...(result.unreadable ? { unreadable: result.unreadable } : {}) }, () =>
        (result.unreadable ? `Discarded the unreadable pending-changes journal of ${id} (${result.unreadable}).` : `Discarded ${result.discarded.length} pending change(s) of ${id}.`) +
          (result.scratchRemoved ? ' Removed its scratch directory (the ignored paths a mount wrote).' : ''),
        'report',
      );
      // A copy directory of the session (forge mount --copy) holds the view again: its changes are gone too.
      await resetCopy(await openStore(options), id);
    });
}

async function resetCopy(store: SessionStore, id: string): Promise<void> {
  const { CopyMount, copyRecordPath } = await import('../../mount/node/copy-mount');
  if (!existsSync(copyRecordPath(store.repo.commonDir, id))) return;
  const session = await store.open(id);
  try {
    await (await CopyMount.find(session))?.writeBack();
  } finally {
    await session.close();
  }
}
