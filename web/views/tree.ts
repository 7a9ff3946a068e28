/**
 * Time travel: the file tree of any commit with a file's content (line numbers, colouring, CRLF
 * shown), and the diff between two commits.
 */
import type { CompareView, FileView, TreeView } from '../../src/inspect/history';
import { get } from '../api';
import { clear, h, html, short } from '../dom';
import { loadCodeView, type CodeView } from '../lazy';

const enc = encodeURIComponent;

/** Lines per block of a file's content: a block off screen skips layout and paint. */
const BLOCK_LINES = 200;
/** The content's line height in px (the stylesheet's): a block off screen keeps exactly its height, so the line numbers stay beside their lines. */
const LINE_PX = 18;

function fileContent(file: FileView, { languageOf, NearScreenColourer }: typeof CodeView): { view: HTMLElement; stop: () => void } {
  const head = h('header.file-head', {}, h('span.path', {}, file.path), h('span.sub', {}, ` ${file.size} bytes · ${file.mode} · blob ${short(file.oid)}`), file.crlf ? h('span.badge.crlf', {}, 'CRLF') : null);
  const none = () => undefined;
  if (file.binary) return { view: h('div.file-view', {}, head, h('pre.summary', {}, `Binary file, ${file.size} bytes.`)), stop: none };
  if (file.large) return { view: h('div.file-view', {}, head, h('pre.summary', {}, `Large file, ${file.size} bytes: not shown.`)), stop: none };
  const lines = file.text!.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const language = languageOf(file.path);
  // One piece of markup for the whole file, in blocks of lines (10,000 lines as elements one by
  // one took a long task, and colouring them all a long task per frame for seconds).
  let markup = '';
  for (let at = 0; at < lines.length; at += BLOCK_LINES) {
    const block = lines.slice(at, at + BLOCK_LINES);
    markup += html`<span class="block" data-language="${language}" style="contain-intrinsic-size: auto ${block.length * LINE_PX}px">${block.map((line) => {
      const cr = line.endsWith('\r');
      return html`<span class="line">${cr ? line.slice(0, -1) : line}${cr ? html`<span class="cr" title="carriage return">␍</span>` : ''}</span>\n`;
    })}</span>`.value;
  }
  const code = h('code.source');
  code.innerHTML = markup;
  const numbers = h('pre.line-numbers', { 'aria-hidden': 'true' }, lines.map((_, i) => `${i + 1}`).join('\n'));
  const colourer = new NearScreenColourer('.line');
  for (const block of code.children) colourer.observe(block);
  return { view: h('div.file-view', {}, head, h('div.code', {}, numbers, h('pre.content', {}, code))), stop: () => colourer.stop() };
}

export function treeView(app: HTMLElement, commit: string, path: string | undefined): () => void {
  let stopped = false;
  let stopColouring = () => undefined as void;
  void (async () => {
    const tree = await get<TreeView>(`/commits/${enc(commit)}/tree`);
    clear(app);
    const list = h(
      'ul.tree',
      {},
      ...tree.files.map((f) => h('li', {}, h('a', { href: `#/tree/${commit}/${f.path.split('/').map(enc).join('/')}`, 'aria-current': f.path === path ? 'page' : false }, f.path))),
    );
    const content = h('section.file-pane', {}, path ? h('p', {}, 'Loading…') : h('p.sub', {}, 'Pick a file.'));
    app.append(h('section.tree-head', {}, h('h2', {}, 'Files at ', h('code', {}, short(tree.commit)), ` (${tree.files.length} files)`)), h('div.split.tree-split', {}, h('nav.tree-pane', {}, list), content));
    if (path) {
      const [file, code] = await Promise.all([get<FileView>(`/commits/${enc(commit)}/file`, { path }), loadCodeView()]);
      if (stopped) return;
      const shown = fileContent(file, code);
      stopColouring = shown.stop;
      clear(content);
      content.append(h('a.button.blame-link', { href: `#/blame/${tree.commit}/${path.split('/').map(enc).join('/')}` }, 'blame: who wrote each line'), shown.view);
    }
    app.dataset.loaded = 'tree';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => {
    stopped = true;
    stopColouring();
  };
}

export function compareView(app: HTMLElement, from: string, to: string): () => void {
  void (async () => {
    const [diff, { renderDiff }] = await Promise.all([get<CompareView>('/compare', { from, to }), loadCodeView()]);
    clear(app);
    app.append(h('section.compare-head', {}, h('h2', {}, 'Compare ', h('code', {}, short(diff.from)), ' … ', h('code', {}, short(diff.to)))), renderDiff(diff.files, 'side-by-side'));
    app.dataset.loaded = 'compare';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}
