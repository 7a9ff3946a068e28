/** forge fetch [--remote NAME] [SESSION…]: remote session branches into refs/remotes/<remote>/forge/session/<id>. */
import type { Command } from 'commander';
import { fetchSessions, pullSession, type RemoteSessionStatus } from '../../remote';
import { nodeStreamInflater } from '../../remote/node/stream-inflater';
import { common } from '../common';
import { emit, shortOid, warn } from '../io';
import { openRepository, openStore } from '../open';
import { remoteAccess, type RemoteCliOptions } from './push';

export function registerFetch(program: Command): void {
  common(program.command('fetch [sessions...]'))
    .description('bring a remote\'s session branches into refs/remotes/<remote>/forge/session/<id>')
    .option('--remote <name>', 'a configured remote (default origin)')
    .option('--allow-http', 'allow plain http to hosts other than loopback')
    .action(async (sessions: string[], options: RemoteCliOptions) => {
      const repo = await openRepository(options);
      const result = await fetchSessions(repo, {
        ...(sessions.length > 0 ? { sessions } : {}),
        ...remoteAccess(options),
        inflate: nodeStreamInflater,
      });
      warn(result.warnings);
      emit(options, result, () =>
        [
          `From ${result.remote}`,
          ...result.sessions.map((s) => `${s.status.padEnd(11)} ${result.name}/${s.session}  ${s.before && s.before !== s.after ? `${shortOid(s.before)}..` : ''}${shortOid(s.after)}`),
          `${result.objects} object(s) received.`,
        ].join('\n'),
      );
    });
}

/** The remote half of `forge session list`: fetched sessions and where the local ones stand against them. */
export function remoteStatusText(statuses: readonly RemoteSessionStatus[]): string {
  if (statuses.length === 0) return '';
  const lines = ['', 'Remote sessions (as of the last fetch or push):'];
  for (const s of statuses) {
    const where =
      s.state === 'remote-only' ? 'remote only (forge session pull to continue it here)'
      : s.state === 'same' ? 'up to date'
      : s.state === 'ahead' ? `local ahead by ${s.ahead} (push)`
      : s.state === 'behind' ? `local behind by ${s.behind} (forge session pull)`
      : `diverged: ${s.ahead} local, ${s.behind} remote (forge resume --from ${shortOid(s.remoteHead)})`;
    lines.push(`${s.remote}/${s.session}  ${shortOid(s.remoteHead)}  ${where}`);
  }
  return lines.join('\n');
}

/** forge session pull <id>: fetch one session and fast-forward (or create) the local branch. */
export function registerSessionPull(session: Command): void {
  common(session.command('pull <id>'))
    .description('fetch a session from a remote and continue it here (fast-forward only: no local turns or pending changes)')
    .option('--remote <name>', 'a configured remote (default origin)')
    .option('--allow-http', 'allow plain http to hosts other than loopback')
    .action(async (id: string, options: RemoteCliOptions) => {
      const store = await openStore(options);
      const result = await pullSession(store.repo, id, {
        ...remoteAccess(options),
        inflate: nodeStreamInflater,
        hasPending: async (session) => {
          // A reader's view: asking needs no lease (a writer elsewhere is reported as pending changes).
          const opened = await store.open(session, { readOnly: true });
          const turn = opened.currentTurn;
          return (await opened.vfs.diff()).length > 0 || opened.state.messages.some((m) => m.turn === turn) || opened.state.toolCalls.some((c) => c.turn === turn);
        },
      });
      warn(result.warnings);
      emit(options, result, () =>
        result.status === 'up-to-date'
          ? `Session ${id} is up to date with ${result.remote}.`
          : `${result.status === 'created' ? 'Created' : 'Fast-forwarded'} forge/session/${id} ${result.before ? `${shortOid(result.before)}..` : 'at '}${shortOid(result.after)} from ${result.remote}; continue with forge run --session ${id}.`,
      );
    });
}
