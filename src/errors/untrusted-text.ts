/**
 * Text that came from outside (a remote's ref names, its error lines, a redirect's Location)
 * made safe to quote in a message: every control character - C0 (ESC, BEL, CR, …), DEL, C1, the
 * line separators and the bidirectional overrides - becomes a visible escape (`\x1b`, `\u202e`),
 * so a message printed on a terminal cannot retitle it, clear it, or reorder what it shows.
 * The one function every message quoting remote data goes through. Pure.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** escapeControl, cut to `max` characters (with "…") so a hostile server cannot fill the screen. */
export function quoteRemote(text: string, max = 200): string {
  const escaped = escapeControl(text);
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}
