/**
 * Newline analysis and conversion (FR-SFE-07/08/09). A CR immediately followed by LF is one CRLF,
 * never a CR plus an LF.
 */
export type NewlineKind = 'LF' | 'CRLF' | 'CR';

export interface NewlineStats {
  lf: number;
  crlf: number;
  cr: number;
  /** Most frequent kind; ties go CRLF > LF > CR; a text without any newline is 'LF'. */
  dominant: NewlineKind;
}

const SEQUENCE: Record<NewlineKind, string> = { LF: '\n', CRLF: '\r\n', CR: '\r' };

/** Matches any one newline, CRLF first so that it is never split. */
const ANY_NEWLINE = /\r\n|\r|\n/g;

export function newlineSequence(kind: NewlineKind): string {
  return SEQUENCE[kind];
}

export function analyzeNewlines(text: string): NewlineStats {
  // indexOf jumps from newline to newline natively: a 1 MB file costs well under a millisecond.
  let crlf = 0;
  let cr = 0;
  for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) {
    if (text.charCodeAt(i + 1) === 10) crlf++;
    else cr++;
  }
  let lf = -crlf;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lf++;
  return newlineStats(lf, crlf, cr);
}

/** Stats of counted newlines (the dominant kind picked as analyzeNewlines picks it). */
export function newlineStats(lf: number, crlf: number, cr: number): NewlineStats {
  return { lf, crlf, cr, dominant: dominantOf(lf, crlf, cr) };
}

function dominantOf(lf: number, crlf: number, cr: number): NewlineKind {
  // Checked in tie-break order, so an equal count keeps the earlier kind.
  let best: NewlineKind = 'CRLF';
  let bestCount = crlf;
  if (lf > bestCount) {
    best = 'LF';
    bestCount = lf;
  }
  if (cr > bestCount) best = 'CR';
  if (lf === 0 && crlf === 0 && cr === 0) return 'LF';
  return best;
}

/**
 * Rewrites every newline of `text` (LF, CRLF or lone CR alike) as `kind`. Callers usually pass
 * LF-only text, but any style is accepted so that inserted text never carries a stray style.
 */
export function convertNewlines(text: string, kind: NewlineKind): string {
  const seq = SEQUENCE[kind];
  return text.replace(ANY_NEWLINE, seq);
}

/** The LF-only form of `text`. */
export function toLF(text: string): string {
  return convertNewlines(text, 'LF');
}
