/**
 * For a failed match (TEXT_NO_MATCH): the place in the file that equals the old text once ALL
 * whitespace is ignored, and how its whitespace differs line by line, so the model can copy the
 * text exactly. Anchored on the old text's most specific line, never on a lone brace.
 */
import { trailingWhitespace } from './indent-units';
import { isBlank, type LineIndex } from './lines';
import { leadingWhitespace } from './reindent';

export interface WhitespaceCandidate {
  /** 1-based lines of the file. */
  startLine: number;
  endLine: number;
  /** How the file's whitespace differs from the old text's, one phrase per differing line (at most 5). */
  differences: string[];
}

const MIN_ANCHOR_CHARS = 3;
const MAX_DIFFERENCES = 5;

export function nearestWhitespaceCandidate(index: LineIndex, needle: string): WhitespaceCandidate | null {
  const lines = needle.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const squeezed = lines.map(squeeze);
  let anchor = -1;
  for (let i = 0; i < lines.length; i++) if (anchor === -1 || squeezed[i].length > squeezed[anchor].length) anchor = i;
  if (anchor === -1 || squeezed[anchor].length < MIN_ANCHOR_CHARS) return null;
  const token = lines[anchor].trim().split(/\s/)[0];

  let best: { first: number; score: number } | null = null;
  for (let line = 1; line <= index.lineCount; line++) {
    const text = index.lineText(line);
    if (!text.includes(token) || squeeze(text) !== squeezed[anchor]) continue;
    const first = line - anchor;
    if (first < 1 || first + lines.length - 1 > index.lineCount) continue;
    let score = 0;
    for (let i = 0; i < lines.length; i++) if (squeeze(index.lineText(first + i)) === squeezed[i]) score++;
    if (best === null || score > best.score) best = { first, score };
  }
  if (best === null || best.score * 2 < lines.length) return null;

  const differences: string[] = [];
  for (let i = 0; i < lines.length && differences.length < MAX_DIFFERENCES; i++) {
    const line = best.first + i;
    const d = difference(index.lineText(line), lines[i], squeezed[i]);
    if (d !== null) differences.push(`line ${line}: ${d}`);
  }
  return { startLine: best.first, endLine: best.first + lines.length - 1, differences };
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}

function difference(file: string, given: string, givenSqueezed: string): string | null {
  if (file === given) return null;
  if (squeeze(file) !== givenSqueezed) return `the text differs: the file has ${JSON.stringify(file)}`;
  if (isBlank(file) && isBlank(given)) return null;
  const parts: string[] = [];
  const [fl, gl] = [leadingWhitespace(file), leadingWhitespace(given)];
  if (fl !== gl) parts.push(`indentation ${JSON.stringify(fl)} in the file, ${JSON.stringify(gl)} in the old text`);
  const [ft, gt] = [trailingWhitespace(file), trailingWhitespace(given)];
  if (ft !== gt) parts.push(`line-end whitespace ${JSON.stringify(ft)} in the file, ${JSON.stringify(gt)} in the old text`);
  if (parts.length === 0) parts.push(`whitespace inside the line differs: the file has ${JSON.stringify(file)}`);
  return parts.join('; ');
}

/** The candidate as message lines. */
export function formatWhitespaceCandidate(c: WhitespaceCandidate): string {
  const head = `Lines ${c.startLine}-${c.endLine} match if whitespace is ignored`;
  return c.differences.length === 0 ? `${head}.` : `${head}; they differ in:\n${c.differences.map((d) => `  ${d}`).join('\n')}`;
}
