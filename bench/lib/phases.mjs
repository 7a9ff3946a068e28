/**
 * Where a forge process's time goes (issue 30): forge run with FORGE_TIMING_FILE appends, at its
 * exit, the milliseconds since the process's time origin at each phase (src/cli/phase-timing.ts).
 * Phases, each the time since the previous mark: runtime start (Node up to the launcher's first
 * statement), bundle load (reading and running the code-cached bundle up to the CLI's entry),
 * command (its module and the argument parser), repository open, work + output (to the exit).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { median } from '../bench-kit.mjs';

export const PHASES = [
  ['runtime', 'runtime start', null, 'launcher'],
  ['bundle', 'bundle load', 'launcher', 'main'],
  ['command', 'command module + arguments', 'main', 'command'],
  ['open', 'repository open', 'command', 'opened'],
  ['work', 'work + output', 'opened', 'exit'],
];

/** The marks appended to `file` since it was last read (and the file removed). */
export function takeMarks(file) {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
  rmSync(file, { force: true });
  return lines.map((l) => JSON.parse(l));
}

/** Median milliseconds of each phase over runs (a command without a repository has no `open`). */
export function phaseMedians(marksList) {
  const out = {};
  for (const [key, , from, to] of PHASES) {
    const values = marksList
      .map((m) => {
        const end = m[to] ?? (to === 'opened' ? m.command : undefined);
        const start = from === null ? 0 : (m[from] ?? (from === 'opened' ? m.command : undefined));
        return end != null && start != null ? end - start : null;
      })
      .filter((v) => v != null);
    out[key] = values.length > 0 ? median(values) : null;
  }
  return out;
}

export const fmtPhases = (p) => (p ? PHASES.map(([key, label]) => `${label} ${p[key] == null ? '—' : p[key].toFixed(0)}`).join(' · ') : '—');
