/** The shapes of the Patch engine (REQ-PATCH-001..005); the tool schema itself lives in the tools layer. */
import type { RecoveryLevel } from './fuzzy-match';
import type { NewlineKind } from './newlines';
import type { ReindentSpec } from './reindent';

export type PatchOperation = 'replace' | 'append_eof' | 'prepend_bof' | 'overwrite';

export const PATCH_OPERATIONS: readonly PatchOperation[] = ['replace', 'append_eof', 'prepend_bof', 'overwrite'];

export interface PatchOp {
  operation: PatchOperation;
  /** Text to locate; required (non-empty) for replace, ignored otherwise. */
  oldText?: string;
  /** Text to insert; for replace a missing newText deletes the match. Ignored when fromClipboard is set. */
  newText?: string;
  /** replace only: store the text actually matched under this name. */
  toClipboard?: string;
  /** Use this clipboard's content as newText. */
  fromClipboard?: string;
  /** Strip then add a prefix on each non-blank line of the inserted text. */
  reindent?: ReindentSpec;
}

export interface PatchResult {
  /** The new file content. */
  text: string;
  /** A new clipboard map (the input map is never changed). */
  clipboards: Record<string, string>;
  /** Things the model should know: fuzzy matches and the text they matched, clipboard updates, added newlines. */
  notes: string[];
  /** Things a human should know, such as editing a generated file. */
  warnings: string[];
  /** The newline style inserted text was written in. */
  newlineKind: NewlineKind;
  /** One entry per replace whose oldText was placed by the recovery ladder (or matched after a line's indentation). */
  recoveries: PatchRecovery[];
}

/** Which ladder level placed a replace, where, and what it adjusted. */
export interface PatchRecovery {
  patch: number;
  level: RecoveryLevel;
  /** 1-based lines of the original that were replaced. */
  startLine: number;
  endLine: number;
  adjusted: string[];
}

export interface ApplyPatchesOptions {
  /** Repo-relative path, used only to detect generated files. */
  path?: string;
  /** What messages call one operation ("patch 2 (replace): ..."); SEARCH/REPLACE input says "block". */
  itemName?: string;
}
