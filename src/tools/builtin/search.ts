/**
 * search: a regular expression over the text files of the view, line by line, with bounded
 * results. Binary files, files over the size limit, .forge/ and denied paths are skipped.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { defineTool } from '../define';
import { dirArg, globFilter } from '../glob';
import { isSafeRegex } from '../regex-safety';
import { isVisiblePath } from '../sandbox';
import { decodeText } from '../text-io';

const Input = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression, matched against each line, e.g. "function\\\\s+parse" or "TODO".'),
  path: z.string().optional().describe('Directory (or file) to search, relative to the repository root. Default: the whole repository.'),
  glob: z.string().min(1).optional().describe('Only files matching this gitignore-style pattern, matched against repo-relative paths, e.g. "*.ts" or "src/**/*.test.ts".'),
});

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchOutput {
  pattern: string;
  matches: SearchMatch[];
  files_searched: number;
  files_with_matches: number;
  /** Results stopped at a limit; narrow the search with path, glob or a more specific pattern. */
  truncated: boolean;
  skipped: { binary: number; too_large: number };
}

function compile(pattern: string): RegExp {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new ForgeError('TOOL_INPUT_INVALID', `\`pattern\` is not a valid JavaScript regular expression: ${error instanceof Error ? error.message : String(error)}. Escape special characters such as ( [ { . * + ? with a backslash.`, {
      data: { issues: [{ field: 'pattern', message: 'not a valid regular expression' }] },
    });
  }
  // JavaScript regexes backtrack and cannot be interrupted: a nested quantifier such as (a+)+ can
  // take exponential time on one long line and stall the whole turn. Refuse it up front.
  if (!isSafeRegex(regex)) {
    throw new ForgeError('TOOL_INPUT_INVALID', '`pattern` nests quantifiers (like "(a+)+" or "(\\w+\\s?)*"), which can take exponential time. Search for a simpler pattern, e.g. one of the words, then read the file.', {
      data: { issues: [{ field: 'pattern', message: 'nested quantifiers (catastrophic backtracking)' }] },
    });
  }
  return regex;
}

export const searchTool = defineTool({
  name: 'search',
  description:
    'Search the text files of the workspace for a JavaScript regular expression, line by line. Returns matching lines with their path and line number. ' +
    'Results are limited; narrow the search with path or glob when truncated is true. Binary and very large files are skipped.',
  input: Input,
  sideEffects: false,
  paths: (input) => [{ field: 'path', path: input.path ?? '', role: 'dir' }],
  async handler(input, ctx): Promise<SearchOutput> {
    const regex = compile(input.pattern);
    const matchesGlob = globFilter(input.glob);
    const limits = ctx.config.search;
    const dir = dirArg(input.path);
    const stat = await ctx.vfs.stat(dir);
    if (stat === null) throw new ForgeError('PATH_NOT_FOUND', `No file or directory at ${dir}.`, { data: { path: dir } });
    const entries = stat.type === 'directory' ? await ctx.vfs.walk(dir) : [stat];
    const out: SearchOutput = { pattern: input.pattern, matches: [], files_searched: 0, files_with_matches: 0, truncated: false, skipped: { binary: 0, too_large: 0 } };
    for (const entry of entries) {
      if (entry.type !== 'file' || !isVisiblePath(entry.path, ctx.config) || !matchesGlob(entry.path)) continue;
      const bytes = await ctx.vfs.readFile(entry.path);
      if (bytes.length > limits.max_file_bytes) {
        out.skipped.too_large++;
        continue;
      }
      const text = decodeText(bytes);
      if (text === null) {
        out.skipped.binary++;
        continue;
      }
      out.files_searched++;
      let inFile = 0;
      const lines = text.split(/\r\n|\r|\n/);
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!regex.test(line)) continue;
        if (out.matches.length >= limits.max_matches || inFile >= limits.max_matches_per_file) {
          out.truncated = true;
          break;
        }
        inFile++;
        const shown = line.length > limits.max_line_chars ? `${line.slice(0, limits.max_line_chars)}…` : line;
        out.matches.push({ path: entry.path, line: i + 1, text: shown });
      }
      if (inFile > 0) out.files_with_matches++;
      if (out.matches.length >= limits.max_matches && out.truncated) break;
    }
    return out;
  },
});
