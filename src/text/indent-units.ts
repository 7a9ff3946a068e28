/**
 * Indentation as widths and units, for translating the indentation a model wrote (spaces where the
 * file has tabs, or the other way round) into the file's own unit. Pure helpers over leading
 * whitespace strings; nothing here looks past a line's indentation.
 */

export type IndentUnit = 'tab' | 'space' | 'mixed' | 'none';

/** The tab widths tried when tabs and spaces must be compared, most common first. */
export const TAB_WIDTHS: readonly number[] = [4, 8, 2];

/** Display width of leading whitespace, a tab advancing to the next multiple of `tabWidth`. */
export function indentColumns(ws: string, tabWidth: number): number {
  let col = 0;
  for (let i = 0; i < ws.length; i++) col = ws.charCodeAt(i) === 9 ? col - (col % tabWidth) + tabWidth : col + 1;
  return col;
}

/** Which characters a set of indentation strings uses ('none' when they are all empty). */
export function unitOf(indents: Iterable<string>): IndentUnit {
  let tabs = false;
  let spaces = false;
  for (const ws of indents) {
    if (ws.includes('\t')) tabs = true;
    if (ws.includes(' ')) spaces = true;
  }
  if (tabs && spaces) return 'mixed';
  return tabs ? 'tab' : spaces ? 'space' : 'none';
}

/** `columns` of indentation written in `unit` (tabs first, then the remainder as spaces). */
export function renderColumns(columns: number, unit: IndentUnit, tabWidth: number): string {
  const n = Math.max(0, columns);
  if (unit !== 'tab') return ' '.repeat(n);
  return '\t'.repeat(Math.floor(n / tabWidth)) + ' '.repeat(n % tabWidth);
}

/**
 * Rewrites relative indentation written in `from` units into `to` units: runs of `tabWidth`
 * spaces become tabs, or tabs become `tabWidth` spaces. Anything else is kept as written.
 */
export function translateUnit(ws: string, from: IndentUnit, to: IndentUnit, tabWidth: number): string {
  if (from === 'space' && to === 'tab' && /^ *$/.test(ws)) return renderColumns(ws.length, 'tab', tabWidth);
  if (from === 'tab' && to === 'space' && /^\t*$/.test(ws)) return ' '.repeat(ws.length * tabWidth);
  return ws;
}

/** Trailing spaces and tabs of a line (not other whitespace: a form feed is content to keep). */
export function trailingWhitespace(line: string): string {
  return /[ \t]*$/.exec(line)?.[0] ?? '';
}
