/**
 * Colour on a terminal, as git and gh do: only when stdout is a TTY, never with --no-color or a
 * non-empty NO_COLOR (no-color.org); FORCE_COLOR (non-empty, not "0") asks for it elsewhere
 * (a pager, a test), but NO_COLOR and --no-color still win.
 */
import { cliGlobals } from './globals';

type Paint = (text: string) => string;

export function colorEnabled(env: Readonly<Record<string, string | undefined>> = process.env, isTty: boolean = process.stdout.isTTY === true): boolean {
  if (!cliGlobals.color || (env.NO_COLOR ?? '') !== '') return false;
  if ((env.FORCE_COLOR ?? '') !== '' && env.FORCE_COLOR !== '0') return true;
  return isTty;
}

const sgr = (code: string): Paint => (text) => (colorEnabled() && text !== '' ? `\x1b[${code}m${text}\x1b[0m` : text);

export const paint = {
  red: sgr('31'),
  green: sgr('32'),
  yellow: sgr('33'),
  cyan: sgr('36'),
  bold: sgr('1'),
  dim: sgr('2'),
};

/** A unified diff with git's colours: headers bold, hunk headers cyan, removed red, added green. */
export function colorDiff(patch: string): string {
  if (!colorEnabled()) return patch;
  return patch
    .split('\n')
    .map((line) => {
      if (/^(diff |index |--- |\+\+\+ |new file|deleted file|old mode|new mode|similarity|rename )/.test(line)) return paint.bold(line);
      if (line.startsWith('@@')) return paint.cyan(line);
      if (line.startsWith('+')) return paint.green(line);
      if (line.startsWith('-')) return paint.red(line);
      return line;
    })
    .join('\n');
}
