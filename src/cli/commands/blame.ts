/** forge blame <path> | forge why <path>:<line> */
import type { Command } from 'commander';
import { ForgeError } from '../../errors';
import { blameFile, fileProvenance, porcelain, whyLine, type LineProvenance } from '../../provenance';
import { paint } from '../color';
import { common } from '../common';
import { emit, shortOid, type CommonOptions } from '../io';
import { openRepository } from '../open';

function who(line: LineProvenance): string {
  if (!line.session) return line.author.name;
  const call = line.session.call ? ` ${line.session.call.tool}` : '';
  return `${line.session.session.slice(0, 8)} turn ${line.session.turn}${call}`;
}

function humanBlame(lines: LineProvenance[]): string {
  const whoWidth = Math.max(0, ...lines.map((l) => who(l).length));
  const numWidth = String(lines.length).length;
  return lines
    .map((l) => {
      const date = `${l.author.time.slice(0, 10)} ${l.author.time.slice(11, 16)} UTC`;
      const label = who(l).padEnd(whoWidth);
      return `${paint.yellow(shortOid(l.commit))} (${l.session ? paint.cyan(label) : label} ${date} ${String(l.line).padStart(numWidth)}) ${l.text}`;
    })
    .join('\n');
}

function parseLocation(spec: string): { path: string; line: number } {
  const match = /^(.+):(\d+)$/.exec(spec);
  if (!match || Number(match[2]) < 1) throw new ForgeError('INVALID_ARGUMENT', `Expected <path>:<line> with a line number from 1, got ${JSON.stringify(spec)}.`, { data: { spec } });
  return { path: match[1]!, line: Number(match[2]) };
}

export function registerBlame(program: Command): void {
  common(program.command('blame <path>'))
    .description("each line with the commit that last changed it (git blame's attribution) and, for lines a session wrote, the session, turn, tool call and user message")
    .option('--rev <rev>', 'the commit to blame (default: HEAD)', 'HEAD')
    .option('--porcelain', "git blame --porcelain's format (forge-session/forge-turn header lines added for session turns)")
    .option('--line-porcelain', 'like --porcelain, with the commit details on every line')
    .action(async (path: string, options: CommonOptions & { rev: string; porcelain?: boolean; linePorcelain?: boolean }) => {
      const repo = await openRepository(options);
      if ((options.porcelain || options.linePorcelain) && !options.json) {
        const blamed = await blameFile(repo, options.rev, path.replace(/^\.\//, ''));
        process.stdout.write(porcelain(blamed.blame, blamed.commits, { linePorcelain: options.linePorcelain === true }));
        return;
      }
      const file = await fileProvenance(repo, options.rev, path.replace(/^\.\//, ''));
      emit(options, { commit: file.commit, path: file.path, lines: file.lines }, () => humanBlame(file.lines));
    });

  common(program.command('why <location>'))
    .description('the conversation that wrote a line: <path>:<line> → the user message, the assistant text, the tool call and its result')
    .option('--rev <rev>', 'the commit to look at (default: HEAD)', 'HEAD')
    .action(async (location: string, options: CommonOptions & { rev: string }) => {
      const { path, line } = parseLocation(location);
      const repo = await openRepository(options);
      const why = await whyLine(repo, options.rev, path.replace(/^\.\//, ''), line);
      emit(options, why, () => {
        const l = why.line;
        const out = [`${path}:${line}  ${l.text}`, `commit ${l.commit}  ${l.author.name} <${l.author.email}>  ${l.author.time}`, `    ${l.summary}`];
        if (!l.session) {
          out.push('', 'Not written by a forge session turn.');
          return out.join('\n');
        }
        out.push(`session ${l.session.session}  turn ${l.session.turn}${l.session.model ? `  model ${l.session.model}` : ''}${l.session.replays ? `  (replays ${l.session.replays})` : ''}`);
        out.push(`open: forge show ${shortOid(l.commit)}   resume: forge resume --from ${shortOid(l.commit)}`);
        if (why.userMessage !== null) out.push('', paint.bold('user:'), indent(why.userMessage));
        if (why.assistantText !== null) out.push('', paint.bold('assistant:'), indent(why.assistantText));
        if (why.call) {
          out.push('', paint.bold(`call ${why.call.tool} (${why.call.id}): ${why.call.ok ? 'ok' : `error ${why.call.error?.code}`}`), indent(JSON.stringify(why.call.args, null, 2)));
          const result = why.call.ok ? why.call.output : why.call.error?.message;
          if (result !== undefined) out.push(paint.bold('result:'), indent(typeof result === 'string' ? result : JSON.stringify(result, null, 2)));
        } else {
          out.push('', 'No tool call of that turn names this file: the turn changed it another way (a command, or an edit outside the tools).');
        }
        return out.join('\n');
      });
    });
}

function indent(text: string): string {
  const max = 4000;
  const clipped = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters; --json has all)` : text;
  return clipped
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
