// The "In a browser" section of docs/PERFORMANCE.md sits between these markers: written by
// bench/browser-bench.mjs, and carried over unchanged when scripts/bench.mjs rewrites the rest.
export const BROWSER_START = '<!-- browser-bench:start -->';
export const BROWSER_END = '<!-- browser-bench:end -->';

/** The marked section of a document (markers included), or ''. */
export function browserSectionOf(doc) {
  const start = doc.indexOf(BROWSER_START);
  const end = doc.indexOf(BROWSER_END);
  return start >= 0 && end > start ? doc.slice(start, end + BROWSER_END.length) + '\n' : '';
}

/** The document with its marked section replaced (or appended). */
export function withBrowserSection(doc, section) {
  const old = browserSectionOf(doc);
  const marked = `${BROWSER_START}\n${section.trim()}\n${BROWSER_END}\n`;
  if (old === '') return `${doc.trimEnd()}\n\n${marked}`;
  return doc.replace(old, marked);
}
