/**
 * `git blame --porcelain`, byte for byte: a header per group of lines (commit, source line,
 * final line, count), the commit's details the first time it appears, `previous` and `filename`,
 * then each line behind a tab. Forge adds `forge-session` and `forge-turn` after a session
 * turn's details: header lines git's own parsers skip as unknown.
 */
import type { Signature } from '../git';
import { originKey, type BlameResult } from './blame';

export interface PorcelainCommit {
  author: Signature;
  committer: Signature;
  message: string;
  /** True for a commit without parents (git marks it a boundary). */
  root: boolean;
  session?: { id: string; turn: number };
}

export function formatZone(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** Maximal runs of final lines blamed on the same commit and path at consecutive source lines. */
export function blameGroups(result: BlameResult): Array<{ start: number; count: number }> {
  const groups: Array<{ start: number; count: number }> = [];
  for (let i = 0; i < result.lines.length; i++) {
    const line = result.lines[i]!;
    const last = groups[groups.length - 1];
    const prev = i > 0 ? result.lines[i - 1]! : undefined;
    if (last && prev && prev.commit === line.commit && prev.path === line.path && prev.sourceLine + 1 === line.sourceLine) last.count++;
    else groups.push({ start: i, count: 1 });
  }
  return groups;
}

/** The text of final line `index` (0-based, in the whole file), without its newline. */
export function lineText(result: BlameResult, index: number): string {
  let end = result.starts[index + 1]!;
  if (end > result.starts[index]! && result.bytes[end - 1] === 10) end--;
  return new TextDecoder().decode(result.bytes.subarray(result.starts[index]!, end));
}

function quotePath(path: string): string {
  // git quotes names with control characters, '"' or '\\' (core.quotePath also quotes non-ASCII).
  if (!/[\x00-\x1f"\\\x7f-\uffff]/.test(path)) return path;
  const bytes = new TextEncoder().encode(path);
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b === 9) out += '\\t';
    else if (b === 10) out += '\\n';
    else if (b < 0x20 || b >= 0x7f) out += '\\' + b.toString(8).padStart(3, '0');
    else out += String.fromCharCode(b);
  }
  return out + '"';
}

export function porcelain(result: BlameResult, commits: ReadonlyMap<string, PorcelainCommit>, options: { linePorcelain?: boolean } = {}): string {
  const out: string[] = [];
  const shown = new Set<string>();
  for (const group of blameGroups(result)) {
    for (let k = 0; k < group.count; k++) {
      const index = group.start + k;
      const line = result.lines[index]!;
      out.push(`${line.commit} ${line.sourceLine + 1} ${result.first + index + 1}${k === 0 ? ` ${group.count}` : ''}\n`);
      if (k === 0 || options.linePorcelain) {
        const info = commits.get(line.commit)!;
        const first = !shown.has(line.commit);
        if (first || options.linePorcelain) {
          shown.add(line.commit);
          const sig = (role: string, s: Signature) => `${role} ${s.name}\n${role}-mail <${s.email}>\n${role}-time ${s.timestamp}\n${role}-tz ${formatZone(s.timezoneOffset)}\n`;
          out.push(sig('author', info.author), sig('committer', info.committer), `summary ${info.message.split('\n')[0] ?? ''}\n`);
          if (info.root) out.push('boundary\n');
          if (info.session) out.push(`forge-session ${info.session.id}\nforge-turn ${info.session.turn}\n`);
          const origin = result.origins.get(originKey(line.commit, line.path));
          if (origin?.previous) out.push(`previous ${origin.previous.commit} ${quotePath(origin.previous.path)}\n`);
          out.push(`filename ${quotePath(line.path)}\n`);
        }
      }
      out.push(`\t${lineText(result, result.first + index)}\n`);
    }
  }
  return out.join('');
}
