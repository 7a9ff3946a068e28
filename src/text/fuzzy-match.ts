/**
 * Locating the text to replace (REQ-PATCH-001/005). First an exact search on the canonical LF view;
 * only when the text occurs nowhere, recovery strategies that tolerate the whitespace mistakes
 * models make, tried from the most to the least specific:
 *
 *   level 0  indentation: whole lines match after removing each side's common indentation
 *            (blank lines match blank lines whatever their whitespace); the replacement is then
 *            re-indented by the same delta.
 *   level 1  the same, after ignoring blank lines at the start and end of the old text.
 *   level 2  the same, also ignoring the old text's final newline (a last line of the file that
 *            has no newline).
 *   level 3  the same, after ignoring ONE non-blank first or last line that the replacement keeps
 *            unchanged (identical first/last line in newText), which covers a partial or garbled
 *            boundary line: since the edit does not change that line, leaving it out of both sides
 *            cannot change the result. At least two non-blank lines must remain.
 *   level 4  both the first and the last line as in level 3.
 *
 * Every level must find exactly one location: if a level finds several, recovery stops and fails,
 * it never picks one. Exact matches that occur several times are reported as ambiguous and are
 * never resolved by recovery either.
 */
import { LineIndex, isBlank, splitsSurrogatePair } from './lines';
import { commonIndent, shiftIndent } from './reindent';

/** The old text as lines; `endsWithNewline` means its last line must be followed by a newline. */
interface NeedleLines {
  lines: string[];
  endsWithNewline: boolean;
}

export interface FuzzyAdjustment {
  /** Human-readable list of what was tolerated, for the notes shown to the model. */
  description: string;
  /** Indentation of the old text and of the file where it matched (equal when unchanged). */
  indentFrom: string;
  indentTo: string;
  /** Lines left out at each end (for the authored newText: leave out the same ones). */
  dropLeadingBlank: number;
  dropTrailingBlank: number;
  dropFinalNewline: boolean;
  dropFirstLine: boolean;
  dropLastLine: boolean;
}

export type LocateOutcome =
  | { kind: 'found'; start: number; end: number; fuzzy: FuzzyAdjustment | null }
  | { kind: 'ambiguous'; lines: number[] }
  | { kind: 'not_found'; fuzzyAmbiguousLines: number[] };

/** Start offsets of every occurrence of `needle` (overlapping ones too), skipping any that would split an astral character. */
export function findExactMatches(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    if (splitsSurrogatePair(haystack, i) || splitsSurrogatePair(haystack, i + needle.length)) continue;
    found.push(i);
  }
  return found;
}

/**
 * Finds the unique place of LF-only `oldText` in LF-only `haystack`. `newText` is the authored
 * replacement (null when it comes from a clipboard): levels 3 and 4 need it to check that a left-out
 * line is unchanged, so without it they are skipped.
 */
export function locateOldText(haystack: string, oldText: string, newText: string | null, index = new LineIndex(haystack)): LocateOutcome {
  const exact = findExactMatches(haystack, oldText);
  if (exact.length === 1) return { kind: 'found', start: exact[0], end: exact[0] + oldText.length, fuzzy: null };
  if (exact.length > 1) return { kind: 'ambiguous', lines: exact.map((o) => index.lineOf(o)) };

  const fileLines = haystack.split('\n');
  const needle = parseLines(oldText);
  const authored = newText === null ? null : parseLines(newText);
  for (const level of recoveryLevels(needle, authored)) {
    const hits: { variant: Variant; window: Window }[] = [];
    for (const variant of level) {
      const windows = findWindows(index, fileLines, variant.needle);
      if (windows.length > 1) return { kind: 'not_found', fuzzyAmbiguousLines: windows.map((w) => w.startLine) };
      if (windows.length === 1) hits.push({ variant, window: windows[0] });
    }
    if (hits.length === 0) continue;
    const first = hits[0];
    const elsewhere = hits.filter((h) => h.window.end <= first.window.start || h.window.start >= first.window.end);
    if (elsewhere.length > 0) {
      return { kind: 'not_found', fuzzyAmbiguousLines: [first, ...elsewhere].map((h) => h.window.startLine) };
    }
    return { kind: 'found', start: first.window.start, end: first.window.end, fuzzy: adjustmentOf(first.variant, first.window) };
  }
  return { kind: 'not_found', fuzzyAmbiguousLines: [] };
}

/** Applies to the authored newText the same trimming and indentation delta that made the old text match. */
export function adaptNewText(newText: string, fuzzy: FuzzyAdjustment): { text: string; lessIndentedLines: number } {
  let parsed = parseLines(newText);
  parsed = dropBlank(parsed, fuzzy.dropLeadingBlank, fuzzy.dropTrailingBlank);
  if (fuzzy.dropFinalNewline) parsed = { ...parsed, endsWithNewline: false };
  if (fuzzy.dropFirstLine) parsed = { ...parsed, lines: parsed.lines.slice(1) };
  if (fuzzy.dropLastLine) parsed = { lines: parsed.lines.slice(0, -1), endsWithNewline: true };
  const trimmed = joinLines(parsed);
  if (fuzzy.indentFrom === fuzzy.indentTo) return { text: trimmed, lessIndentedLines: 0 };
  const shifted = shiftIndent(trimmed, fuzzy.indentFrom, fuzzy.indentTo);
  return { text: shifted.text, lessIndentedLines: shifted.untouched };
}

interface Variant {
  needle: NeedleLines;
  dropLeadingBlank: number;
  dropTrailingBlank: number;
  dropFinalNewline: boolean;
  dropFirstLine: boolean;
  dropLastLine: boolean;
}

interface Window {
  startLine: number;
  start: number;
  end: number;
  needleIndent: string;
  fileIndent: string;
}

function parseLines(text: string): NeedleLines {
  const endsWithNewline = text.endsWith('\n');
  const body = endsWithNewline ? text.slice(0, -1) : text;
  return { lines: body.split('\n'), endsWithNewline };
}

function joinLines(n: NeedleLines): string {
  if (n.lines.length === 0) return '';
  return n.lines.join('\n') + (n.endsWithNewline ? '\n' : '');
}

/** Removes up to `leading`/`trailing` blank lines; removing a last line leaves the one before it newline-terminated. */
function dropBlank(n: NeedleLines, leading: number, trailing: number): NeedleLines {
  let lines = n.lines;
  let endsWithNewline = n.endsWithNewline;
  let l = 0;
  while (l < leading && l < lines.length && isBlank(lines[l])) l++;
  lines = lines.slice(l);
  let t = 0;
  while (t < trailing && t < lines.length && isBlank(lines[lines.length - 1 - t])) t++;
  if (t > 0) {
    lines = lines.slice(0, lines.length - t);
    endsWithNewline = true;
  }
  return { lines, endsWithNewline };
}

function nonBlankCount(n: NeedleLines): number {
  return n.lines.filter((l) => !isBlank(l)).length;
}

/** The recovery levels described at the top of this file, each a list of variants of the old text. */
function recoveryLevels(needle: NeedleLines, authored: NeedleLines | null): Variant[][] {
  const base: Variant = {
    needle,
    dropLeadingBlank: 0,
    dropTrailingBlank: 0,
    dropFinalNewline: false,
    dropFirstLine: false,
    dropLastLine: false,
  };
  const levels: Variant[][] = [[base]];

  let leading = 0;
  while (leading < needle.lines.length && isBlank(needle.lines[leading])) leading++;
  let trailing = 0;
  while (trailing < needle.lines.length - leading && isBlank(needle.lines[needle.lines.length - 1 - trailing])) trailing++;
  const blankTrimmed: Variant = { ...base, needle: dropBlank(needle, leading, trailing), dropLeadingBlank: leading, dropTrailingBlank: trailing };
  if (leading + trailing > 0) levels.push([blankTrimmed]);
  if (blankTrimmed.needle.endsWithNewline) {
    levels.push([{ ...blankTrimmed, needle: { ...blankTrimmed.needle, endsWithNewline: false }, dropFinalNewline: true }]);
  }

  // Levels 3 and 4 leave out content lines, which is safe only when newText keeps them unchanged.
  if (authored !== null) {
    const trimmedNew = dropBlank(authored, leading, trailing).lines;
    const lines = blankTrimmed.needle.lines;
    const firstKept = lines.length > 0 && trimmedNew.length > 0 && lines[0] === trimmedNew[0];
    const lastKept = lines.length > 0 && trimmedNew.length > 0 && lines[lines.length - 1] === trimmedNew[trimmedNew.length - 1];
    const withoutFirst: Variant = { ...blankTrimmed, needle: { ...blankTrimmed.needle, lines: lines.slice(1) }, dropFirstLine: true };
    const withoutLast: Variant = { ...blankTrimmed, needle: { lines: lines.slice(0, -1), endsWithNewline: true }, dropLastLine: true };
    const withoutBoth: Variant = { ...withoutFirst, needle: { lines: lines.slice(1, -1), endsWithNewline: true }, dropLastLine: true };
    const specific = (v: Variant) => nonBlankCount(v.needle) >= 2;
    const single = [firstKept ? withoutFirst : null, lastKept ? withoutLast : null].filter((v): v is Variant => v !== null && specific(v));
    if (single.length > 0) levels.push(single);
    if (firstKept && lastKept && lines.length >= 2 && trimmedNew.length >= 2 && specific(withoutBoth)) levels.push([withoutBoth]);
  }
  return levels.filter((level) => level.length > 0 && level.every((v) => nonBlankCount(v.needle) >= 1));
}

/** Windows of whole file lines equal to the needle lines up to a common indentation difference. */
function findWindows(index: LineIndex, fileLines: string[], needle: NeedleLines): Window[] {
  const k = needle.lines.length;
  const nonBlank = needle.lines.map((l) => !isBlank(l));
  const anchor = nonBlank.indexOf(true);
  if (anchor === -1) return [];
  const needleIndent = commonIndent(needle.lines.filter((_, i) => nonBlank[i]));
  const rests = needle.lines.map((l) => l.slice(needleIndent.length));
  const anchorTrimmed = needle.lines[anchor].trimStart();
  // A needle ending in a newline cannot use the phantom empty line after the file's final newline.
  const lastUsable = index.lineCount;

  const windows: Window[] = [];
  for (let j = 0; j + k <= lastUsable; j++) {
    if (fileLines[j + anchor].trimStart() !== anchorTrimmed) continue;
    const window = matchWindow(fileLines, j, nonBlank, rests);
    if (window === null) continue;
    const lastLine = j + k;
    if (needle.endsWithNewline && !index.hasTerminator(lastLine)) continue;
    const start = index.lineStart(j + 1);
    const end = index.lineContentEnd(lastLine) + (needle.endsWithNewline ? 1 : 0);
    windows.push({ startLine: j + 1, start, end, needleIndent, fileIndent: window });
  }
  return windows;
}

/** The file's common indentation if lines j.. match the needle rests, else null. */
function matchWindow(fileLines: string[], j: number, nonBlank: boolean[], rests: string[]): string | null {
  const contentLines: string[] = [];
  for (let i = 0; i < nonBlank.length; i++) {
    const line = fileLines[j + i];
    if (nonBlank[i] === isBlank(line)) return null;
    if (nonBlank[i]) contentLines.push(line);
  }
  const fileIndent = commonIndent(contentLines);
  for (let i = 0; i < nonBlank.length; i++) {
    if (nonBlank[i] && fileLines[j + i].slice(fileIndent.length) !== rests[i]) return null;
  }
  return fileIndent;
}

function adjustmentOf(variant: Variant, window: Window): FuzzyAdjustment {
  const parts: string[] = [];
  if (window.needleIndent !== window.fileIndent) {
    parts.push(`indentation adjusted (the file has ${JSON.stringify(window.fileIndent)} where oldText had ${JSON.stringify(window.needleIndent)})`);
  }
  if (variant.dropLeadingBlank > 0) parts.push(`ignored ${variant.dropLeadingBlank} leading blank line(s) of oldText`);
  if (variant.dropTrailingBlank > 0) parts.push(`ignored ${variant.dropTrailingBlank} trailing blank line(s) of oldText`);
  if (variant.dropFinalNewline) parts.push('ignored the final newline of oldText');
  if (variant.dropFirstLine) parts.push('ignored the first line of oldText (newText keeps it unchanged)');
  if (variant.dropLastLine) parts.push('ignored the last line of oldText (newText keeps it unchanged)');
  if (parts.length === 0) parts.push('whitespace of blank lines differs');
  return {
    description: parts.join('; '),
    indentFrom: window.needleIndent,
    indentTo: window.fileIndent,
    dropLeadingBlank: variant.dropLeadingBlank,
    dropTrailingBlank: variant.dropTrailingBlank,
    dropFinalNewline: variant.dropFinalNewline,
    dropFirstLine: variant.dropFirstLine,
    dropLastLine: variant.dropLastLine,
  };
}
