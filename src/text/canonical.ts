/**
 * The canonical LF view of a text (FR-SFE-05/06): CRLF and lone CR become LF, so matching never
 * depends on the newline style, and every canonical offset maps back to an exact original offset.
 */
import { ForgeError } from '../errors';

export interface CanonicalView {
  /** The text with every CRLF and lone CR replaced by LF. */
  canonical: string;
  /**
   * The original offset of a canonical offset in [0, canonical.length]. An offset just after an LF
   * that came from CRLF maps after both bytes; an offset just before it maps before the CR, so a
   * mapped range never splits a CRLF.
   */
  toOriginal(canonicalOffset: number): number;
}

export function canonicalize(text: string): CanonicalView {
  // Canonical offsets of the LFs that stand for a CRLF: each one shifts later offsets by one.
  const collapsed: number[] = [];
  let removed = 0;
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) === 10) {
      collapsed.push(i - removed);
      removed++;
      i++;
    }
  }
  // One native pass, and a flat string (concatenating runs would build a rope that every search
  // flattens again).
  const canonical = removed === 0 && text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
  const length = canonical.length;

  const toOriginal = (offset: number): number => {
    if (!Number.isInteger(offset) || offset < 0 || offset > length) {
      throw new ForgeError('INTERNAL', `canonical offset ${offset} is outside [0, ${length}]`, {
        data: { offset, length },
      });
    }
    return offset + countBelow(collapsed, offset);
  };
  return { canonical, toOriginal };
}

/** How many entries of the sorted array are strictly below `value`. */
function countBelow(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
