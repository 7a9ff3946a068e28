/**
 * Indentation changes of inserted text: the explicit `reindent` of a patch (REQ-PATCH-004) and the
 * indentation delta found by fuzzy matching. Only lines with non-whitespace content are touched;
 * blank lines are left as written, because indenting them would only add trailing whitespace.
 */
import { ForgeError } from '../errors';
import { isBlank } from './lines';

export interface ReindentSpec {
  /** Prefix removed from every non-blank line; each of them must start with it. */
  strip?: string;
  /** Prefix added to every non-blank line (after strip). */
  add?: string;
}

/**
 * Applies strip then add to each non-blank line of LF-only `text`. Throws PATCH_REINDENT_FAILED
 * naming the first non-blank line that lacks the strip prefix. Blank lines lose the strip prefix
 * when they have it and are otherwise kept.
 */
export function applyReindent(text: string, spec: ReindentSpec | undefined): string {
  const strip = spec?.strip ?? '';
  const add = spec?.add ?? '';
  if (strip === '' && add === '') return text;
  const lines = text.split('\n');
  const out = lines.map((line, i) => {
    if (isBlank(line)) return line.startsWith(strip) ? line.slice(strip.length) : line;
    if (!line.startsWith(strip)) {
      throw new ForgeError(
        'PATCH_REINDENT_FAILED',
        `reindent.strip precondition failed: line ${i + 1} of the inserted text does not start with ` +
          `the strip prefix ${JSON.stringify(strip)}: ${JSON.stringify(line)}. ` +
          'Every non-blank line must start with the strip prefix; use a shorter prefix (the common ' +
          'indentation of all lines) or omit strip.',
        { data: { line: i + 1, strip, text: line } },
      );
    }
    return add + line.slice(strip.length);
  });
  return out.join('\n');
}

/** Longest whitespace prefix shared by all given (non-blank) lines. */
export function commonIndent(lines: readonly string[]): string {
  let prefix: string | null = null;
  for (const line of lines) {
    const indent = leadingWhitespace(line);
    if (prefix === null) {
      prefix = indent;
      continue;
    }
    let n = 0;
    while (n < prefix.length && n < indent.length && prefix[n] === indent[n]) n++;
    prefix = prefix.slice(0, n);
    if (prefix === '') break;
  }
  return prefix ?? '';
}

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/**
 * Replaces the indentation prefix `from` by `to` on each non-blank line of LF-only `text`.
 * Lines that do not start with `from` (written less indented than the text they replace) are
 * left as they are and counted, so the caller can mention them.
 */
export function shiftIndent(text: string, from: string, to: string): { text: string; untouched: number } {
  let untouched = 0;
  const out = text.split('\n').map((line) => {
    if (isBlank(line)) return line;
    if (!line.startsWith(from)) {
      untouched++;
      return line;
    }
    return to + line.slice(from.length);
  });
  return { text: out.join('\n'), untouched };
}
