/**
 * Result shapes of the Edit engine (FR-SFE-04): edits report a status instead of throwing, so the
 * tool can answer `no_match` or `ambiguous` with candidates; every non-ok result carries a stable
 * error code and a message that says what to change. A failed result never carries text.
 */
import type { ErrorCode } from '../errors';
import type { LineCandidate } from './closest-lines';
import type { RecoveryLevel } from './fuzzy-match';
import type { NewlineKind } from './newlines';

export interface EditError {
  status: 'error';
  code: ErrorCode;
  message: string;
}

export interface SnippetEditOk {
  status: 'ok';
  text: string;
  message: string;
  /** 1-based lines of the original that the old snippet covered. */
  matchStartLine: number;
  matchEndLine: number;
  /** The style the new snippet was written in (the file's dominant newline). */
  newlineKind: NewlineKind;
  /** Present when the snippet was placed by the recovery ladder (or matched after a line's indentation). */
  recovery?: RecoveryReport;
}

/** Which recovery level placed a snippet and what it adjusted, for the model. */
export interface RecoveryReport {
  level: RecoveryLevel;
  adjusted: string[];
}

export interface SnippetNoMatch {
  status: 'no_match';
  code: 'TEXT_NO_MATCH';
  message: string;
  /** The file lines most similar to the snippet, best first (at most 5). */
  candidates: LineCandidate[];
}

export interface SnippetAmbiguous {
  status: 'ambiguous';
  code: 'TEXT_AMBIGUOUS_MATCH';
  message: string;
  /** 1-based start lines of the competing matches. */
  candidateLines: number[];
}

export type SnippetEditResult = SnippetEditOk | SnippetNoMatch | SnippetAmbiguous | EditError;

export interface LineEditOk {
  status: 'ok';
  text: string;
  message: string;
  /** 1-based lines the new content occupies in the result (endLine = startLine - 1 after a deletion). */
  startLine: number;
  endLine: number;
  newlineKind: NewlineKind;
  /**
   * The edit as a splice of the original: `text` is original[0, start) + replacement +
   * original[end, ...). A caller holding a huge file can then write its bytes and diff the
   * changed lines without materializing `text` (the Edit tool does it on the bytes: applyLineEditToBytes).
   */
  splice: TextSplice;
}

export interface TextSplice {
  start: number;
  end: number;
  replacement: string;
}

export type LineEditResult = LineEditOk | EditError;

export function editError(code: ErrorCode, message: string): EditError {
  return { status: 'error', code, message };
}
