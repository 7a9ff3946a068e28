/** forge log <id> | show <commit> | resume --from <commit> */
import { Option, type Command } from 'commander';
import { filePatches } from '../../session';
import { colorDiff, paint } from '../color';
import { cliGlobals } from '../globals';
import { common } from '../common';
import { emit, shortOid, type CommonOptions } from '../io';
import { DATE_STYLES, formatTime, type DateStyle } from '../time';
import { openStore } from '../open';

export function registerHistory(program: Command): void {
  common(program.command('log <session>'))
    .description("list a session's turns: number, commit, time, summary, changed paths")
    .addOption(new Option('--date <style>', 'how times are written: iso (UTC), local or relative').choices(DATE_STYLES).default('iso'))
    .action(async (id: string, options: CommonOptions & { date: DateStyle }) => {
      const turns = await (await openStore(options)).log(id);
      emit(options, { session: id, turns }, () =>
        turns
          .map((t) => `${t.outside ? `(not forge, on turn ${t.turn})` : `turn ${t.turn}`}  ${paint.yellow(shortOid(t.commit))}  ${formatTime(t.time, options.date)}  ${t.summary}${t.changedPaths.length ? '\n' + t.changedPaths.map((p) => `    ${p}`).join('\n') : ''}`)
          .join('\n'),
      );
    });

  common(program.command('show <commit>'))
    .description("the conversation as of a session commit, and that turn's diff")
    .action(async (revision: string, options: CommonOptions) => {
      const store = await openStore(options);
      const at = await store.at(revision);
      const patches = await filePatches(store.repo, at.changes);
      const result = { session: at.id, commit: at.commit, turn: at.state.turn, state: at.state, changes: patches };
      emit(options, result, () => {
        const lines = [`session ${at.id}  turn ${at.state.turn}  commit ${at.commit}`, ''];
        for (const m of at.state.messages) lines.push(`[turn ${m.turn}] ${m.role}: ${m.content}`);
        for (const c of at.state.toolCalls.filter((c) => c.turn === at.state.turn)) {
          lines.push(`[turn ${c.turn}] tool ${c.tool}: ${c.ok ? 'ok' : `error ${c.error?.code}: ${c.error?.message}`}`);
        }
        lines.push('');
        for (const p of patches) lines.push(colorDiff(p.patch.trimEnd()));
        return lines.join('\n');
      });
    });

  common(program.command('resume'))
    .description('continue from a historical session commit in a new session')
    .requiredOption('--from <commit>', 'a commit of a session branch')
    .option('--id <id>', 'id of the new session (default: a new UUID)')
    .action(async (options: CommonOptions & { from: string; id?: string }) => {
      const session = await (await openStore(options)).resume({ from: options.from, ...(options.id !== undefined ? { id: options.id } : {}) });
      const result = { id: session.id, branch: session.branch, head: session.head, parent: session.state.parent };
      emit(options, result, () => (cliGlobals.quiet ? session.id : `${session.id}\nbranch ${session.branch}\nresumed from ${session.state.parent?.session} turn ${session.state.parent?.turn} (${session.state.parent?.commit})`));
    });
}
