/**
 * The Edit tool's snippet mode (FR-SFE-05..12): replace the one occurrence of a snippet. Matching
 * runs on the canonical LF view of both the file and the snippets, so any newline style matches;
 * the new snippet is written in the file's dominant style; every byte outside the match is kept.
 *
 * With a match hint, only matches lying entirely within [startLine, endLine] count: none there is
 * `no_match` even if the snippet occurs elsewhere (never a fallback), several there is `ambiguous`.
 * Overlapping occurrences count as separate matches.
 */
import { canonicalize } from './canonical';
import { closestLines, formatCandidates } from './closest-lines';
import { editError, type SnippetEditResult } from './edit-result';
import { adaptNewText, ambiguousAlignmentMessage, ambiguousTabWidthMessage, unclearCopyMessage } from './adapt-new-text';
import { findExactMatches, locateOldText, unclearIndentationMessage } from './fuzzy-match';
import { LineIndex } from './lines';
import { analyzeNewlines, convertNewlines, toLF } from './newlines';
import { formatWhitespaceCandidate, nearestWhitespaceCandidate } from './whitespace-candidate';

export interface MatchHint {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface SnippetEditRequest {
  oldSnippet: string;
  newSnippet: string;
  matchHint?: MatchHint;
}

interface Match {
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

export function applySnippetEdit(original: string, request: SnippetEditRequest): SnippetEditResult {
  const { matchHint: hint } = request;
  if (hint !== undefined) {
    const problem = hintProblem(hint);
    if (problem !== null) return editError('TEXT_MATCH_HINT_INVALID', problem);
  }
  const oldSnippet = toLF(request.oldSnippet);
  if (oldSnippet === '') {
    return editError(
      'TEXT_EMPTY_SNIPPET',
      'old_snippet is empty, so it cannot identify what to replace. Copy the exact text to change from the file ' +
        'into old_snippet, or use line-range mode (start_line, end_line, new_content).',
    );
  }

  const view = canonicalize(original);
  const index = new LineIndex(view.canonical);
  const all: Match[] = findExactMatches(view.canonical, oldSnippet).map((start) => {
    const end = start + oldSnippet.length;
    return { start, end, ...index.lineRange(start, end) };
  });
  const eligible = hint === undefined ? all : all.filter((m) => m.startLine >= hint.startLine && m.endLine <= hint.endLine);

  if (eligible.length === 0 && all.length > 0) return noMatch(view.canonical, oldSnippet, all, hint, index, []);
  if (eligible.length > 1) {
    const lines = eligible.map((m) => m.startLine);
    const where = hint === undefined ? '' : ` within match_hint lines ${hint.startLine}-${hint.endLine}`;
    return {
      status: 'ambiguous',
      code: 'TEXT_AMBIGUOUS_MATCH',
      message:
        `old_snippet matches ${eligible.length} places${where} (starting at lines ${lines.join(', ')}), so nothing was changed. ` +
        'Give a match_hint {start_line, end_line} that covers exactly one of them, or add neighbouring lines to old_snippet.',
      candidateLines: lines,
    };
  }

  // Exact first (spec 001); the recovery ladder only when the snippet occurs nowhere.
  const newSnippet = toLF(request.newSnippet);
  const outcome = locateOldText(view.canonical, oldSnippet, newSnippet, index, hint);
  if (outcome.kind === 'not_found') return noMatch(view.canonical, oldSnippet, all, hint, index, outcome.fuzzyAmbiguousLines);
  if (outcome.kind === 'ambiguous') return noMatch(view.canonical, oldSnippet, all, hint, index, outcome.lines);
  if (outcome.kind === 'unclear_indentation') return editError('TEXT_INDENTATION_UNCLEAR', unclearIndentationMessage(outcome, 'old_snippet', 'new_snippet'));

  const { startLine, endLine } = index.lineRange(outcome.start, outcome.end);
  const newlineKind = analyzeNewlines(original).dominant;
  const fuzzy = outcome.fuzzy;
  const adapted = fuzzy === null ? null : adaptNewText(newSnippet, fuzzy);
  if (adapted?.unclearCopy) return editError('TEXT_COPY_UNCLEAR', unclearCopyMessage(adapted.unclearCopy, 'old_snippet', 'new_snippet'));
  if (adapted?.ambiguousTabWidth) return editError('TEXT_INDENTATION_UNCLEAR', ambiguousTabWidthMessage(adapted.ambiguousTabWidth, 'old_snippet', 'new_snippet'));
  if (adapted?.ambiguousAlignment) return editError('TEXT_INDENTATION_UNCLEAR', ambiguousAlignmentMessage(adapted.ambiguousAlignment, 'old_snippet', 'new_snippet'));
  const inserted = adapted === null ? request.newSnippet : adapted.text;
  const replacement = convertNewlines(inserted, newlineKind);
  const text = original.slice(0, view.toOriginal(outcome.start)) + replacement + original.slice(view.toOriginal(outcome.end));
  const how =
    fuzzy === null
      ? ''
      : fuzzy.level === 'exact_after_indentation'
        ? ` The snippet matched exactly, but after the line's indentation: ${fuzzy.description}.`
        : ` old_snippet did not match exactly; it was recovered (${fuzzy.level}: ${fuzzy.description}). Check the diff.`;
  return {
    status: 'ok',
    text,
    message: `replaced lines ${startLine}-${endLine} (newlines written as ${newlineKind}).${how}`,
    matchStartLine: startLine,
    matchEndLine: endLine,
    newlineKind,
    ...(fuzzy === null ? {} : { recovery: { level: fuzzy.level, adjusted: fuzzy.adjusted } }),
  };
}

function hintProblem(hint: MatchHint): string | null {
  const { startLine, endLine } = hint;
  if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 1 || endLine < 1) {
    return `match_hint lines must be whole numbers from 1 (got start_line ${startLine}, end_line ${endLine}); lines are 1-based.`;
  }
  if (startLine > endLine) {
    return `match_hint start_line ${startLine} is after end_line ${endLine}; give start_line <= end_line.`;
  }
  return null;
}

function noMatch(canonical: string, snippet: string, all: Match[], hint: MatchHint | undefined, index: LineIndex, fuzzyLines: number[]): SnippetEditResult {
  const candidates = closestLines(canonical, snippet);
  const parts: string[] = [];
  if (hint !== undefined && all.length > 0) {
    parts.push(
      `old_snippet occurs at line(s) ${all.map((m) => m.startLine).join(', ')}, but not within match_hint lines ` +
        `${hint.startLine}-${hint.endLine}, so nothing was changed (a hint never falls back to matches outside it). ` +
        'Correct match_hint so that it covers the occurrence you mean, or drop it if the snippet is unique.',
    );
  } else {
    parts.push('old_snippet was not found in the file, so nothing was changed.');
    if (fuzzyLines.length > 1) {
      parts.push(
        `Whitespace-tolerant matching found ${fuzzyLines.length} possible places (lines ${fuzzyLines.join(', ')}), so none was used; ` +
          'add neighbouring lines to old_snippet or give a match_hint that covers one of them.',
      );
    }
    const loose = nearestWhitespaceCandidate(index, snippet);
    if (loose !== null) parts.push(`${formatWhitespaceCandidate(loose)}\nCopy old_snippet exactly from there, including indentation.`);
    if (candidates.length > 0) parts.push(`The most similar lines are:\n${formatCandidates(candidates)}`);
    parts.push('Re-read the file and copy old_snippet exactly as it appears.');
  }
  return { status: 'no_match', code: 'TEXT_NO_MATCH', message: parts.join('\n'), candidates };
}
