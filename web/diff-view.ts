/**
 * A set of file patches drawn with diff2html (unified or side by side; it parses git's unified
 * diff and pairs changed lines), coloured by highlight.js. CRLF files get a badge and their
 * carriage returns shown as ␍ (diff2html would drop them); binary and very large files arrive
 * summarized from the server and are shown as that summary.
 *
 * Drawing is spread over frames: each file's patch is cut into pieces of CHUNK_LINES lines
 * (`diff-pieces.ts`: the diff's real hunk headers kept, a continuation's own header removed once
 * drawn, a run of over FOLD_RUN lines folded behind a button) drawn within a time budget per frame, so a 10,000-line diff appears at once
 * at its top and the page keeps answering while the rest is drawn. A piece is coloured when it
 * comes near the viewport, a few milliseconds' worth of lines per frame (colouring 15,000 lines
 * up front cost ~10 s of style work; a whole piece at once was one long task), and pieces
 * off screen skip layout (`content-visibility` in the stylesheet). `data-drawn` on the root says
 * when every piece is drawn, `data-coloured` when the pieces on screen are coloured.
 */
import { html as diffHtml } from 'diff2html';
import type { ShownPatch } from '../src/inspect/patches';
import { h } from './dom';
import { languageOf, NearScreenColourer } from './highlight';
import { diffPieces, type LinesPiece } from './diff-pieces';

export type DiffLayout = 'line-by-line' | 'side-by-side';

/** Lines per piece: diff2html and the HTML parser take ~0.15 ms a line, so a piece is one short task. */
const CHUNK_LINES = 100;
/** A run of more lines of one kind than this is folded but for its first and last FOLD_KEEP lines. */
const FOLD_RUN = 400;
const FOLD_KEEP = 100;
/** Main-thread time per frame for drawing pieces, and for colouring lines. */
const FRAME_BUDGET_MS = 10;
const COLOUR_BUDGET_MS = 6;

/** diff2html needs git's header lines; the carriage returns become visible marks. */
function gitPatch(p: ShownPatch, piece: string): string {
  const body = p.crlf ? piece.replace(/\r(?=\n|$)/g, '␍') : piece;
  return `diff --git a/${p.path} b/${p.path}\n${body}`;
}

let cancelRunning: (() => void) | undefined;

/**
 * Runs tasks in order within a time budget per frame, starting now (a small diff is drawn whole
 * before the caller returns); the returned function stops it.
 */
function runInFrames(tasks: Array<() => void>, done: () => void): () => void {
  let index = 0;
  let handle = 0;
  const frame = () => {
    const start = performance.now();
    do tasks[index++]!();
    while (index < tasks.length && performance.now() - start < FRAME_BUDGET_MS);
    if (index < tasks.length) handle = requestAnimationFrame(frame);
    else done();
  };
  if (tasks.length) frame();
  else done();
  return () => cancelAnimationFrame(handle);
}

export function renderDiff(files: readonly ShownPatch[], layout: DiffLayout): HTMLElement {
  cancelRunning?.();
  const root = h('div.diff', { dataset: { layout } });
  if (files.length === 0) {
    root.append(h('p.empty', {}, 'No code changes.'));
    root.dataset.drawn = root.dataset.coloured = 'true';
    return root;
  }
  const draws: Array<() => void> = [];
  // A piece near the viewport has its lines coloured, a few milliseconds' worth per frame (a
  // whole piece at once was one long task).
  const colourer = new NearScreenColourer('.d2h-code-line-ctn', COLOUR_BUDGET_MS);
  let frame = 0;
  // The observer reports what is on screen after the next layout: two frames after the last
  // piece is drawn, and once those lines are coloured, the diff says it is coloured.
  const markColoured = () => {
    frame = requestAnimationFrame(() => (frame = requestAnimationFrame(() => colourer.whenColoured(() => (root.dataset.coloured = 'true')))));
  };
  for (const file of files) {
    const badges = [
      h(`span.badge.${file.kind}`, {}, file.kind),
      file.binary ? h('span.badge.binary', {}, 'binary') : null,
      file.large ? h('span.badge.large', {}, 'large') : null,
      file.crlf ? h('span.badge.crlf', { title: 'this file has CRLF line endings, shown as ␍' }, 'CRLF') : null,
      file.binary ? null : h('span.counts', {}, h('span.plus', {}, `+${file.added}`), ' ', h('span.minus', {}, `-${file.removed}`)),
    ];
    const section = h('section.file', { dataset: { path: file.path } }, h('header.file-head', {}, h('span.path', {}, file.path), ...badges));
    root.append(section);
    if (file.binary || file.large || file.patch === '') {
      section.append(h('pre.summary', {}, file.patch.trim() || 'Mode change only.'));
      continue;
    }
    const language = languageOf(file.path);
    const drawPiece = (piece: LinesPiece, before: Element | null) => {
      const body = h('div.file-body', { dataset: { language } });
      body.innerHTML = diffHtml(gitPatch(file, piece.patch), { outputFormat: layout, drawFileList: false, matching: 'none', diffStyle: 'word' });
      // A piece that continues a hunk: its @@ line is ours, not the diff's (each table of a side-by-side view has one).
      if (piece.continues) for (const table of body.querySelectorAll('tbody')) table.querySelector('tr')?.remove();
      section.insertBefore(body, before);
      colourer.observe(body);
    };
    for (const piece of diffPieces(file.patch, { maxLines: CHUNK_LINES, foldRun: FOLD_RUN, keep: FOLD_KEEP })) {
      if (piece.kind === 'lines') {
        draws.push(() => drawPiece(piece, null));
        continue;
      }
      draws.push(() => {
        const unfold = h('button.unfold', { type: 'button', dataset: { lines: String(piece.lines) } }, `⋯ ${piece.lines.toLocaleString('en-US')} lines folded: show them`);
        unfold.addEventListener('click', () => {
          for (const p of piece.pieces) drawPiece(p, unfold);
          unfold.remove();
        });
        section.append(unfold);
      });
    }
  }
  const stopDraws = runInFrames(draws, () => {
    root.dataset.drawn = 'true';
    markColoured();
  });
  cancelRunning = () => {
    stopDraws();
    cancelAnimationFrame(frame);
    colourer.stop();
  };
  return root;
}
