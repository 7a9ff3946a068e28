/** forge blame <path> | forge why <path>:<line> */
import type { Command } from 'commander';
import { ForgeError } from '../../errors';
import { blameFile, fileProvenance, porcelain, whyLine, type BlameResult, type LineProvenance, type LineRange } from '../../provenance';
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
  const numWidth = String(lines.at(-1)?.line ?? 0).length;
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

/** git blame's `-L <start>,<end>` (1-based, inclusive; `<start>,+<count>` and `<start>,` too) as 0-based [start, end). */
function parseRange(spec: string | undefined): LineRange | undefined {
  if (spec === undefined) return undefined;
  const match = /^(\d+)(?:,(?:(\d+)|\+(\d+))?)?$/.exec(spec);
  const start = match ? Number(match[1]) : 0;
  const end = match?.[2] !== undefined ? Number(match[2]) : match?.[3] !== undefined ? start + Number(match[3]) - 1 : Number.MAX_SAFE_INTEGER;
  if (!match || start < 1 || end < start) throw new ForgeError('INVALID_ARGUMENT', `-L expects <start>,<end> with 1 <= start <= end (or <start>,+<count>), got ${JSON.stringify(spec)}.`, { data: { spec } });
  return { start: start - 1, end };
}

function checkRange(range: LineRange | undefined, blame: BlameResult, path: string): void {
  const count = blame.starts.length - 1;
  if (range && range.start >= count) throw new ForgeError('INVALID_ARGUMENT', `${path} has only ${count} lines; -L starts at line ${range.start + 1}.`, { data: { path, lines: count, start: range.start + 1 } });
}

export function registerBlame(program: Command): void {
  common(program.command('blame <path>'))
    .description("each line with the commit that last changed it (git blame's attribution) and, for lines a session wrote, the session, turn, tool call and user message")
    .option('--rev <rev>', 'the commit to blame (default: HEAD)', 'HEAD')
    .option('--porcelain', "git blame --porcelain's format (forge-session/forge-turn header lines added for session turns)")
    .option('--line-porcelain', 'like --porcelain, with the commit details on every line')
    .option('-L <range>', "only lines <start>,<end> (1-based, inclusive; <start>,+<count>), as git blame -L: only they are followed through history")
    .action(async (path: string, options: CommonOptions & { rev: string; porcelain?: boolean; linePorcelain?: boolean; L?: string }) => {
      const range = parseRange(options.L);
      const repo = await openRepository(options);
      if ((options.porcelain || options.linePorcelain) && !options.json) {
        const blamed = await blameFile(repo, options.rev, path.replace(/^\.\//, ''), range);
        checkRange(range, blamed.blame, path);
        process.stdout.write(porcelain(blamed.blame, blamed.commits, { linePorcelain: options.linePorcelain === true }));
        return;
      }
      const file = await fileProvenance(repo, options.rev, path.replace(/^\.\//, ''), range);
      checkRange(range, file.blame, path);
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
