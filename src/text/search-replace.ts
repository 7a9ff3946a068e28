/**
 * The legacy SEARCH/REPLACE block form, parsed into replace patches and applied by the Patch
 * engine, so matching, fuzzy recovery and atomicity are exactly the same:
 *
 *     <<<<<<< SEARCH
 *     old lines
 *     =======
 *     new lines
 *     >>>>>>> REPLACE
 *
 * Markers are whole lines (5 to 9 marker characters, trailing spaces allowed); any newline style is
 * accepted. Each section's lines keep their final newline. Text between blocks (file names, code
 * fences, prose) is ignored. Inside a REPLACE section a `=======` line is content (it may be a
 * Markdown underline); in a SEARCH section the first one is the divider. An empty SEARCH section
 * appends the REPLACE section at the end of the file (which creates a missing file).
 */
import { ForgeError } from '../errors';
import { toLF } from './newlines';
import { applyPatches } from './patch';
import { checkPatchSize, utf8Length } from './patch-size';
import type { ApplyPatchesOptions, PatchOp, PatchResult } from './patch-types';

const SEARCH = /^<{5,9} ?SEARCH[ \t]*$/;
const DIVIDER = /^={5,9}[ \t]*$/;
const REPLACE = /^>{5,9} ?REPLACE[ \t]*$/;
const FORM = 'Each block must be: a line "<<<<<<< SEARCH", the old lines, a line "=======", the new lines, a line ">>>>>>> REPLACE".';

/** Parses blocks into patch operations (one per block, in order). Throws SEARCH_REPLACE_MALFORMED. */
export function parseSearchReplaceBlocks(blocksText: string): PatchOp[] {
  const lines = toLF(blocksText).split('\n');
  const ops: PatchOp[] = [];
  let state = 'outside' as 'outside' | 'search' | 'replace';
  let openedAt = 0;
  let search: string[] = [];
  let replace: string[] = [];

  for (const [i, line] of lines.entries()) {
    const lineNo = i + 1;
    if (state === 'outside') {
      if (SEARCH.test(line)) {
        state = 'search';
        openedAt = lineNo;
        search = [];
        replace = [];
      } else if (DIVIDER.test(line) || REPLACE.test(line)) {
        throw malformed(`line ${lineNo} has ${JSON.stringify(line)} outside a block: the "<<<<<<< SEARCH" line that opens the block is missing.`, lineNo);
      }
      continue;
    }
    if (state === 'search') {
      if (DIVIDER.test(line)) state = 'replace';
      else if (SEARCH.test(line)) {
        throw malformed(`line ${lineNo} opens a new block, but the block opened at line ${openedAt} has no "=======" divider yet.`, lineNo);
      } else if (REPLACE.test(line)) {
        throw malformed(`line ${lineNo} closes the block opened at line ${openedAt} with "${line.trim()}", but its "=======" divider is missing.`, lineNo);
      } else search.push(line);
      continue;
    }
    if (REPLACE.test(line)) {
      ops.push(toOperation(search, replace));
      state = 'outside';
    } else if (SEARCH.test(line)) {
      throw malformed(`line ${lineNo} opens a new block, but the block opened at line ${openedAt} was not closed with ">>>>>>> REPLACE".`, lineNo);
    } else replace.push(line);
  }

  if (state === 'search') throw malformed(`the block opened at line ${openedAt} ends without its "=======" divider and ">>>>>>> REPLACE" line.`, openedAt);
  if (state === 'replace') throw malformed(`the block opened at line ${openedAt} ends without its ">>>>>>> REPLACE" line.`, openedAt);
  if (ops.length === 0) throw malformed('no SEARCH/REPLACE block was found.', 0);
  return ops;
}

/** Parses `blocksText` and applies its blocks to `original` (null: missing file) as one atomic patch call. */
export function applySearchReplace(
  original: string | null,
  blocksText: string,
  clipboards: Readonly<Record<string, string>> = {},
  options: ApplyPatchesOptions = {},
): PatchResult {
  checkPatchSize(utf8Length(blocksText));
  return applyPatches(original, parseSearchReplaceBlocks(blocksText), clipboards, { itemName: 'block', ...options });
}

function section(lines: string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function toOperation(search: string[], replace: string[]): PatchOp {
  const oldText = section(search);
  const newText = section(replace);
  return oldText === '' ? { operation: 'append_eof', newText } : { operation: 'replace', oldText, newText };
}

function malformed(problem: string, line: number): ForgeError {
  return new ForgeError('SEARCH_REPLACE_MALFORMED', `malformed SEARCH/REPLACE blocks: ${problem} ${FORM}`, { data: { line } });
}
