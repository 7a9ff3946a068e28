/** forge log <id> | show <commit> | resume --from <commit> */
import { Option, type Command } from 'commander';
import { filePatches } from '../../session';
import { colorDiff, paint } from '../color';
import { cliGlobals } from '../globals';
import { common } from '../common';
import { emit, shortOid, type CommonOptions } from '../io';
import { DATE_STYLES, formatTime, type DateStyle } from '../time';
import { openRepository, openStore } from '../open';
import { ForgeError } from '../../errors';
import { parseSince } from '../../provenance/since-date';

export function registerHistory(program: Command): void {
  common(program.command('log [session]'))
    .description("list a session's turns: number, commit, time, summary, changed paths; with --grep/--author/--since, search every session's conversations (local and fetched)")
    .addOption(new Option('--date <style>', 'how times are written: iso (UTC), local or relative').choices(DATE_STYLES).default('iso'))
    .option('--grep <regex>', "turns whose conversation (messages, tool calls and results) or commit message matches")
    .option('--author <regex>', "turns whose commit author (Name <email>) matches, as git log --author")
    .option('--since <date>', 'turns committed at or after a date: ISO 8601, @<unix seconds>, or "<n> <unit>s ago"')
    .option('-i, --regexp-ignore-case', 'match --grep and --author without regard to case')
    .action(async (id: string | undefined, options: CommonOptions & { date: DateStyle; grep?: string; author?: string; since?: string; regexpIgnoreCase?: boolean }) => {
      if (options.grep !== undefined || options.author !== undefined || options.since !== undefined) {
        await searchLog(id, options);
        return;
      }
      if (id === undefined) throw new ForgeError('INVALID_ARGUMENT', 'Missing a session: name one (forge log <id>), or search every session with --grep, --author or --since.', { hint: '"forge log --help" shows its usage.' });
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

function pattern(source: string, ignoreCase: boolean | undefined, option: string): RegExp {
  try {
    return new RegExp(source, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ForgeError('INVALID_ARGUMENT', `${option} ${JSON.stringify(source)} is not a valid regular expression: ${(error as Error).message}.`, { data: { option, source } });
  }
}

async function searchLog(id: string | undefined, options: CommonOptions & { date: DateStyle; grep?: string; author?: string; since?: string; regexpIgnoreCase?: boolean }): Promise<void> {
  const { searchSessions } = await import('../../provenance');
  const repo = await openRepository(options);
  const query = {
    ...(options.grep !== undefined ? { grep: pattern(options.grep, options.regexpIgnoreCase, '--grep') } : {}),
    ...(options.author !== undefined ? { author: pattern(options.author, options.regexpIgnoreCase, '--author') } : {}),
    ...(options.since !== undefined ? { since: parseSince(options.since) } : {}),
    ...(id !== undefined ? { session: id } : {}),
  };
  const hits = [];
  for await (const hit of searchSessions(repo, query)) {
    if (options.json) hits.push(hit);
    else {
      const where = hit.ref.startsWith('refs/remotes/') ? `  (${hit.ref.slice('refs/remotes/'.length, hit.ref.indexOf('/forge/session/'))})` : '';
      const lines = [`${hit.session} turn ${hit.turn}  ${paint.yellow(shortOid(hit.commit))}  ${formatTime(hit.time, options.date)}  ${hit.author.name}  ${hit.summary}${where}`];
      for (const m of hit.matches) lines.push(`    ${m.where}: ${m.excerpt}`);
      process.stdout.write(lines.join('\n') + '\n');
    }
  }
  if (options.json) process.stdout.write(JSON.stringify({ hits }) + '\n');
}

// The one --since parser, shared with the inspector's search (re-exported for its tests).
export { parseSince } from '../../provenance/since-date';
