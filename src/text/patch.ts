/**
 * The Patch engine (REQ-PATCH-001..005, 007, 008). All patches of a call are located in the ORIGINAL
 * content, then applied at once: either every patch applies or a ForgeError is thrown and nothing
 * (text, clipboards) changes. Matching runs on the canonical LF view; inserted text is written in the
 * file's dominant newline style; everything outside the changed regions is copied byte for byte.
 *
 * Rules chosen here:
 * - replace needs a non-empty oldText that occurs exactly once (or is recovered by fuzzy-match.ts);
 *   a missing newText deletes the match (a "cut" with toClipboard).
 * - Clipboards are processed in patch order; within one patch toClipboard is stored before
 *   fromClipboard is read, so the same name on both is a copy (text unchanged). Clipboards hold
 *   LF-only text and take the target file's newline style when pasted.
 * - Inserted text: explicit reindent first, then (authored newText only, never clipboard content)
 *   the trimming and indentation delta of a fuzzy match.
 * - Several prepends or appends insert in patch order. An append to a file that does not end with a
 *   newline, or a prepend that would join the file's first line, gets a newline in between (noted).
 * - overwrite replaces the whole file and must be the only patch of its call.
 */
import { ForgeError } from '../errors';
import { canonicalize } from './canonical';
import { closestLines, formatCandidates } from './closest-lines';
import { adaptNewText, ambiguousAlignmentMessage, ambiguousTabWidthMessage, unclearCopyMessage } from './adapt-new-text';
import { locateOldText, unclearIndentationMessage } from './fuzzy-match';
import { detectGenerated } from './generated';
import { LineIndex } from './lines';
import { formatWhitespaceCandidate, nearestWhitespaceCandidate } from './whitespace-candidate';
import { analyzeNewlines, convertNewlines, newlineSequence, toLF, type NewlineKind } from './newlines';
import { checkPatchSize, patchInputBytes } from './patch-size';
import { PATCH_OPERATIONS, type ApplyPatchesOptions, type PatchOp, type PatchRecovery, type PatchResult } from './patch-types';
import { applyReindent } from './reindent';

type EditKind = 'prepend' | 'replace' | 'append';

/** One planned change, in canonical offsets of the original. */
interface PlannedEdit {
  patchNo: number;
  kind: EditKind;
  start: number;
  end: number;
  /** LF-only text to insert. */
  text: string;
}

const KIND_ORDER: Record<EditKind, number> = { prepend: 0, replace: 1, append: 2 };
const MAX_NOTE_CHARS = 2000;

/**
 * Applies `patches` to `original` (null: the file does not exist). Returns the new text, an updated
 * copy of `clipboards`, notes for the model and warnings; throws a ForgeError if any patch fails.
 */
export function applyPatches(
  original: string | null,
  patches: readonly PatchOp[],
  clipboards: Readonly<Record<string, string>> = {},
  options: ApplyPatchesOptions = {},
): PatchResult {
  checkPatchSize(patchInputBytes(patches));
  const item = options.itemName ?? 'patch';
  validatePatches(original, patches, item);

  const source = original ?? '';
  const view = canonicalize(source);
  const index = new LineIndex(view.canonical);
  const newlineKind = analyzeNewlines(source).dominant;
  const clips: Record<string, string> = { ...clipboards };
  const notes: string[] = [];
  const warnings: string[] = [];
  const edits: PlannedEdit[] = [];
  const recoveries: PatchRecovery[] = [];

  patches.forEach((op, i) => {
    const patchNo = i + 1;
    const label = `${item} ${patchNo} (${op.operation})`;
    if (op.operation !== 'replace') {
      if (op.oldText !== undefined && op.oldText !== '') notes.push(`${label}: oldText is ignored for ${op.operation}.`);
      const text = applyReindent(insertedText(op, clips, label, notes), op.reindent);
      const end = view.canonical.length;
      if (op.operation === 'append_eof') edits.push({ patchNo, kind: 'append', start: end, end, text });
      else if (op.operation === 'prepend_bof') edits.push({ patchNo, kind: 'prepend', start: 0, end: 0, text });
      else edits.push({ patchNo, kind: 'replace', start: 0, end, text });
      return;
    }
    edits.push(planReplace(op, patchNo, label, view.canonical, index, clips, notes, recoveries, item));
  });

  rejectOverlaps(edits, index, item);
  const text = render(source, view.toOriginal, edits, newlineKind, notes, item);
  if (options.path !== undefined) {
    const generated = detectGenerated(options.path, source);
    if (generated !== null) warnings.push(generated);
  }
  return { text, clipboards: clips, notes, warnings, newlineKind, recoveries };
}

function validatePatches(original: string | null, patches: readonly PatchOp[], item: string): void {
  if (patches.length === 0) {
    throw new ForgeError('PATCH_INVALID_OPERATION', `no ${plural(item)} were given; pass at least one.`);
  }
  patches.forEach((op, i) => {
    const label = `${item} ${i + 1}`;
    if (!PATCH_OPERATIONS.includes(op.operation)) {
      throw new ForgeError(
        'PATCH_INVALID_OPERATION',
        `${label}: unknown operation ${JSON.stringify(op.operation)}; use one of ${PATCH_OPERATIONS.join(', ')}.`,
        { data: { patch: i + 1, operation: op.operation } },
      );
    }
    if (op.operation === 'replace' && (op.oldText === undefined || toLF(op.oldText) === '')) {
      throw new ForgeError(
        'TEXT_EMPTY_SNIPPET',
        `${label} (replace): oldText is empty; replace needs the exact text to change, copied from the file. ` +
          'To insert at the start or end of the file use prepend_bof or append_eof; to replace everything use overwrite.',
        { data: { patch: i + 1 } },
      );
    }
    if (op.operation !== 'replace' && op.toClipboard !== undefined) {
      throw new ForgeError(
        'PATCH_INVALID_OPERATION',
        `${label} (${op.operation}): toClipboard only works with replace, where it stores the text matched by oldText. ` +
          'Use a replace patch to copy or cut text into a clipboard.',
        { data: { patch: i + 1 } },
      );
    }
    if (op.operation !== 'replace' && op.newText === undefined && op.fromClipboard === undefined) {
      throw new ForgeError(
        'PATCH_INVALID_OPERATION',
        `${label} (${op.operation}): newText is missing; give the text to insert in newText (or name a clipboard in fromClipboard).`,
        { data: { patch: i + 1 } },
      );
    }
    if (op.operation === 'overwrite' && patches.length > 1) {
      throw new ForgeError(
        'PATCH_INVALID_OPERATION',
        `${label} (overwrite): overwrite replaces the whole file, so it must be the only patch of its call ` +
          `(this call has ${patches.length}). Put the complete new content in the overwrite's newText, or make separate calls.`,
        { data: { patch: i + 1, patches: patches.length } },
      );
    }
    if (original === null && op.operation === 'replace') {
      throw new ForgeError(
        'PATCH_FILE_MISSING',
        `${label} (replace): the file does not exist, so there is no text to replace. ` +
          'A missing file can only be created with overwrite (or append_eof / prepend_bof); give its full content in newText.',
        { data: { patch: i + 1 } },
      );
    }
  });
}

function planReplace(
  op: PatchOp,
  patchNo: number,
  label: string,
  canonical: string,
  index: LineIndex,
  clips: Record<string, string>,
  notes: string[],
  recoveries: PatchRecovery[],
  item: string,
): PlannedEdit {
  const oldText = toLF(op.oldText ?? '');
  const authored = op.fromClipboard === undefined ? toLF(op.newText ?? '') : null;
  const outcome = locateOldText(canonical, oldText, authored, index);
  if (outcome.kind === 'ambiguous') {
    throw new ForgeError(
      'TEXT_AMBIGUOUS_MATCH',
      `${label}: oldText appears ${outcome.lines.length} times (starting at lines ${outcome.lines.join(', ')}); ` +
        'replace needs it to appear exactly once. Add neighbouring lines to oldText so that it is unique.',
      { data: { patch: patchNo, lines: outcome.lines } },
    );
  }
  if (outcome.kind === 'not_found') throw notFound(label, patchNo, canonical, index, oldText, outcome.fuzzyAmbiguousLines);
  if (outcome.kind === 'unclear_indentation') {
    throw new ForgeError('TEXT_INDENTATION_UNCLEAR', `${label}: ${unclearIndentationMessage(outcome, 'oldText', 'newText')}`, {
      data: { patch: patchNo, line: outcome.line, indentation: outcome.indentation, newLine: outcome.newLine },
    });
  }

  const matched = canonical.slice(outcome.start, outcome.end);
  const { startLine, endLine } = index.lineRange(outcome.start, outcome.end);
  const recovered = outcome.fuzzy !== null && outcome.fuzzy.level !== 'exact_after_indentation';
  if (outcome.fuzzy !== null) {
    recoveries.push({ patch: patchNo, level: outcome.fuzzy.level, startLine, endLine, adjusted: outcome.fuzzy.adjusted });
    notes.push(
      recovered
        ? `${label}: oldText did not match exactly; it was matched at lines ${startLine}-${endLine} with whitespace ` +
            `recovery (${outcome.fuzzy.level}: ${outcome.fuzzy.description}). The text actually matched was: ${quoteForNote(matched)}`
        : `${label}: oldText matched exactly at line ${startLine}, but after the line's indentation: ${outcome.fuzzy.description}.`,
    );
  }
  if (op.toClipboard !== undefined) {
    clips[op.toClipboard] = matched;
    const fuzzyPart = recovered ? ' It holds the text actually matched in the file, not your oldText.' : '';
    notes.push(`${label}: clipboard ${JSON.stringify(op.toClipboard)} now holds lines ${startLine}-${endLine} of the original.${fuzzyPart}`);
  }
  if (op.newText === undefined && op.fromClipboard === undefined) {
    notes.push(`${label}: newText was not given, so the matched text was deleted.`);
  }

  let text = applyReindent(insertedText(op, clips, label, notes), op.reindent);
  if (outcome.fuzzy !== null && authored !== null) {
    const adapted = adaptNewText(text, outcome.fuzzy);
    if (adapted.unclearCopy) {
      throw new ForgeError('TEXT_COPY_UNCLEAR', `${label}: ${unclearCopyMessage(adapted.unclearCopy, 'oldText', 'newText')}`, {
        data: { patch: patchNo, newLine: adapted.unclearCopy.newLine },
      });
    }
    if (adapted.ambiguousTabWidth) {
      throw new ForgeError('TEXT_INDENTATION_UNCLEAR', `${label}: ${ambiguousTabWidthMessage(adapted.ambiguousTabWidth, 'oldText', 'newText')}`, {
        data: { patch: patchNo, newLine: adapted.ambiguousTabWidth.newLine },
      });
    }
    if (adapted.ambiguousAlignment) {
      throw new ForgeError('TEXT_INDENTATION_UNCLEAR', `${label}: ${ambiguousAlignmentMessage(adapted.ambiguousAlignment, 'oldText', 'newText')}`, {
        data: { patch: patchNo, newLine: adapted.ambiguousAlignment.newLine },
      });
    }
    text = adapted.text;
    if (outcome.fuzzy.dropFinalNewline) notes.push(finalNewlineNote(label, item));
    if (adapted.lessIndentedLines > 0) {
      notes.push(`${label}: ${adapted.lessIndentedLines} line(s) of newText were less indented than the shift allows and were placed at the start of the line; check their indentation.`);
    }
  }
  return { patchNo, kind: 'replace', start: outcome.start, end: outcome.end, text };
}

/** The LF-only text a patch inserts: its clipboard's content, or its newText. */
function insertedText(op: PatchOp, clips: Record<string, string>, label: string, notes: string[]): string {
  if (op.fromClipboard === undefined) return toLF(op.newText ?? '');
  const content = clips[op.fromClipboard];
  if (content === undefined) {
    const known = Object.keys(clips);
    throw new ForgeError(
      'PATCH_CLIPBOARD_MISSING',
      `${label}: clipboard ${JSON.stringify(op.fromClipboard)} does not exist (existing clipboards: ` +
        `${known.length === 0 ? 'none' : known.map((k) => JSON.stringify(k)).join(', ')}). ` +
        'Fill it first with toClipboard on a replace patch (earlier in this call or in a previous call), or give newText instead.',
      { data: { clipboard: op.fromClipboard, existing: known } },
    );
  }
  if (op.newText !== undefined && op.newText !== '') notes.push(`${label}: newText is ignored because fromClipboard is set.`);
  return toLF(content);
}

function notFound(label: string, patchNo: number, canonical: string, index: LineIndex, oldText: string, fuzzyLines: number[]): ForgeError {
  const parts = [`${label}: old text not found.`];
  if (fuzzyLines.length > 1) {
    parts.push(
      `Whitespace-tolerant matching found ${fuzzyLines.length} possible places (lines ${fuzzyLines.join(', ')}), ` +
        'so nothing was applied; add more surrounding lines to oldText to make it unique.',
    );
  }
  const loose = nearestWhitespaceCandidate(index, oldText);
  if (loose !== null) parts.push(`${formatWhitespaceCandidate(loose)}\nCopy oldText exactly from there, including indentation.`);
  const candidates = closestLines(canonical, oldText);
  if (candidates.length > 0) parts.push(`The most similar lines in the file are:\n${formatCandidates(candidates)}`);
  parts.push('Re-read the file and copy oldText exactly as it appears there, including indentation and blank lines.');
  return new ForgeError('TEXT_NO_MATCH', parts.join('\n'), {
    data: { patch: patchNo, candidates, fuzzyAmbiguousLines: fuzzyLines, ...(loose === null ? {} : { whitespaceCandidate: loose }) },
  });
}

function finalNewlineNote(label: string, item: string): string {
  const how =
    item === 'block'
      ? 'SEARCH/REPLACE sections always end with a newline, so blocks cannot add or remove a final newline: use Patch or Edit for that ' +
        '(replace the last line with the same line followed by a newline to add one, or the reverse to remove it).'
      : 'To add one, replace the last line (oldText without a newline) with the same line followed by a newline.';
  return `${label}: the file's last line has no final newline, so the new text was inserted without one. ${how}`;
}

function rejectOverlaps(edits: PlannedEdit[], index: LineIndex, item: string): void {
  const regions = edits.filter((e) => e.kind === 'replace').sort((a, b) => a.patchNo - b.patchNo);
  for (let i = 0; i < regions.length; i++) {
    for (let j = i + 1; j < regions.length; j++) {
      const a = regions[i];
      const b = regions[j];
      if (a.start >= b.end || b.start >= a.end) continue;
      const lines = index.lineRange(Math.max(a.start, b.start), Math.min(a.end, b.end));
      throw new ForgeError(
        'PATCH_OVERLAP',
        `${plural(item)} ${a.patchNo} and ${b.patchNo} overlap: both change line(s) ${lines.startLine}-${lines.endLine} of the original file. ` +
          'All patches of a call are located in the original content and applied at once, so each must change a ' +
          'separate region; merge the two into one replace, or make their oldText cover different lines.',
        { data: { patches: [a.patchNo, b.patchNo], startLine: lines.startLine, endLine: lines.endLine } },
      );
    }
  }
}

/** Builds the new text from original slices and inserted texts, adding separator newlines where needed. */
function render(
  source: string,
  toOriginal: (offset: number) => number,
  edits: PlannedEdit[],
  kind: NewlineKind,
  notes: string[],
  item: string,
): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.patchNo - b.patchNo);
  const segments: { text: string; edit: PlannedEdit | null }[] = [];
  let cursor = 0;
  for (const edit of sorted) {
    segments.push({ text: source.slice(toOriginal(cursor), toOriginal(edit.start)), edit: null });
    segments.push({ text: convertNewlines(edit.text, kind), edit });
    cursor = edit.end;
  }
  segments.push({ text: source.slice(toOriginal(cursor)), edit: null });

  const newline = newlineSequence(kind);
  let out = '';
  segments.forEach((seg, i) => {
    const edit = seg.edit;
    if (edit?.kind === 'append' && seg.text !== '' && out !== '' && !endsWithNewline(out) && !startsWithNewline(seg.text)) {
      out += newline;
      notes.push(`${item} ${edit.patchNo} (append_eof): the file did not end with a newline, so one was added before the appended text.`);
    }
    out += seg.text;
    if (edit?.kind === 'prepend' && seg.text !== '' && !endsWithNewline(seg.text)) {
      const next = segments.slice(i + 1).find((s) => s.text !== '');
      if (next !== undefined && !startsWithNewline(next.text)) {
        out += newline;
        notes.push(`${item} ${edit.patchNo} (prepend_bof): a newline was added after the prepended text so that it does not join the next line.`);
      }
    }
  });
  return out;
}

function plural(item: string): string {
  return /(s|sh|ch|x)$/.test(item) ? `${item}es` : `${item}s`;
}

function endsWithNewline(text: string): boolean {
  return text.endsWith('\n') || text.endsWith('\r');
}

function startsWithNewline(text: string): boolean {
  return text.startsWith('\n') || text.startsWith('\r');
}

function quoteForNote(text: string): string {
  if (text.length <= MAX_NOTE_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_NOTE_CHARS))} … (${text.length - MAX_NOTE_CHARS} more characters)`;
}
