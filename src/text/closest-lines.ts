/**
 * Suggestions for a failed match (FR-SFE-12): the file lines most similar to the lines of the text
 * that was not found, so a model can see what the file really says and correct its snippet.
 */
import { LineIndex, isBlank, preview } from './lines';

export interface LineCandidate {
  /** 1-based line in the file. */
  line: number;
  /** The line's text, shortened. */
  preview: string;
}

const MAX_PROBES = 3;
const MIN_SIMILARITY = 0.5;
const MIN_PROBE_WORD_CHARS = 3;

/**
 * Up to `limit` file lines that best resemble one of the first specific lines of `needle` (lines
 * with at least three letters or digits, when it has any)
 * (bigram similarity of the trimmed lines), best first, then by line number.
 */
export function closestLines(canonicalText: string, needle: string, limit = 5): LineCandidate[] {
  const content = needle.split('\n').filter((l) => !isBlank(l));
  // Lines like `}` or `});` resemble hundreds of lines and say nothing about where the text is.
  const specific = content.filter((l) => (l.match(/[\p{L}\p{N}]/gu) ?? []).length >= MIN_PROBE_WORD_CHARS);
  const probes = (specific.length > 0 ? specific : content).slice(0, MAX_PROBES).map((l) => bigrams(l.trim()));
  if (probes.length === 0) return [];

  const index = new LineIndex(canonicalText);
  const scored: { line: number; score: number }[] = [];
  for (let line = 1; line <= index.lineCount; line++) {
    const text = index.lineText(line).trim();
    if (text === '') continue;
    const grams = bigrams(text);
    let best = 0;
    for (const probe of probes) best = Math.max(best, similarity(probe, grams));
    if (best >= MIN_SIMILARITY) scored.push({ line, score: best });
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  return scored.slice(0, limit).map(({ line }) => ({ line, preview: preview(index.lineText(line)) }));
}

/** Renders candidates as indented `line N: text` rows for a message. */
export function formatCandidates(candidates: LineCandidate[]): string {
  return candidates.map((c) => `  line ${c.line}: ${c.preview}`).join('\n');
}

interface Bigrams {
  counts: Map<string, number>;
  total: number;
}

function bigrams(text: string): Bigrams {
  const counts = new Map<string, number>();
  // A one-character line still gets one gram, so it can match itself.
  const padded = text.length === 1 ? ` ${text}` : text;
  for (let i = 0; i + 1 < padded.length; i++) {
    const gram = padded.slice(i, i + 2);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return { counts, total: Math.max(0, padded.length - 1) };
}

/** Sørensen–Dice coefficient over bigram multisets, in [0, 1]. */
function similarity(a: Bigrams, b: Bigrams): number {
  if (a.total === 0 || b.total === 0) return 0;
  let shared = 0;
  const [small, large] = a.counts.size <= b.counts.size ? [a, b] : [b, a];
  for (const [gram, count] of small.counts) shared += Math.min(count, large.counts.get(gram) ?? 0);
  return (2 * shared) / (a.total + b.total);
}
