/**
 * What draws code: diff2html and highlight.js, ~140 KB of the page's 165 KB script. The views
 * that draw code (a turn, files at a commit, a comparison) load it with `loadCodeView()`; the
 * bundler keeps it in app.js but turns the dynamic import into a module initialized on first
 * use, so the sessions list and the timeline never run (or compile) it.
 */
export { renderDiff, type DiffLayout } from './diff-view';
export { languageOf, NearScreenColourer } from './highlight';
