/**
 * Where a command's time goes, for the benchmarks: with FORGE_TIMING_FILE set, the milliseconds
 * since the process's time origin at each phase (the launcher's first line, the CLI's entry once
 * the bundle is loaded, the command's module loaded, the repository opened, the exit) are
 * appended to that file as one JSON line at exit. Unset (always, outside a bench), it does nothing.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.FORGE_TIMING_FILE;
const marks: Record<string, number> = {};

/** Set by scripts/cli-launcher.cjs before it reads the bundle. */
const LAUNCH = Symbol.for('forge.launched');

export function markPhase(phase: 'main' | 'command' | 'opened'): void {
  if (file === undefined || phase in marks) return;
  if (phase === 'main') {
    const launched = (globalThis as Record<symbol, unknown>)[LAUNCH];
    if (typeof launched === 'number') marks.launcher = launched;
    process.once('exit', () => {
      marks.exit = performance.now();
      try {
        appendFileSync(file, `${JSON.stringify(marks)}\n`);
      } catch {
        // A bench's measurement aid: never a reason to fail the command.
      }
    });
  }
  marks[phase] = performance.now();
}
