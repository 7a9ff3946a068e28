/**
 * The pure text engine: newline analysis, the canonical LF view, Edit (snippet and line range),
 * Patch (with fuzzy recovery, clipboards, reindent), SEARCH/REPLACE blocks and unified diffs.
 * No I/O and no node:* imports, so it runs in a browser as well.
 */
export { analyzeNewlines, convertNewlines, newlineSequence, toLF, type NewlineKind, type NewlineStats } from './newlines';
export { canonicalize, type CanonicalView } from './canonical';
export { LineIndex, TerminatedLines } from './lines';
export { closestLines, type LineCandidate } from './closest-lines';
export type {
  EditError,
  LineEditOk,
  LineEditResult,
  RecoveryReport,
  SnippetAmbiguous,
  SnippetEditOk,
  SnippetEditResult,
  SnippetNoMatch,
  TextSplice,
} from './edit-result';
export { applySnippetEdit, type MatchHint, type SnippetEditRequest } from './snippet-edit';
export { applyLineEdit, applyLineEditToBytes, type ByteLineEditResult, type LineEditRequest } from './line-edit';
export { Utf8Lines } from './utf8-lines';
export { findExactMatches, locateOldText, type FuzzyAdjustment, type LocateOutcome, type RecoveryLevel } from './fuzzy-match';
export { adaptNewText } from './adapt-new-text';
export { applyReindent, commonIndent, shiftIndent, type ReindentSpec } from './reindent';
export { detectGenerated } from './generated';
export { checkPatchSize, estimateTokens, patchInputBytes, utf8Length, MAX_PATCH_INPUT_TOKENS } from './patch-size';
export {
  PATCH_OPERATIONS,
  type ApplyPatchesOptions,
  type PatchOp,
  type PatchOperation,
  type PatchRecovery,
  type PatchResult,
} from './patch-types';
export { applyPatches } from './patch';
export { applySearchReplace, parseSearchReplaceBlocks } from './search-replace';
export { unifiedDiff, unifiedDiffOfByteSplice, diffStat, splitKeepingEnds } from './unified-diff';
export { lineChangeCounts, type LineCounts } from './line-stat';
