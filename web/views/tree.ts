/**
 * Time travel: the file tree of any commit with a file's content (line numbers, colouring, CRLF
 * shown), and the diff between two commits.
 */
import type { CompareView, FileView, TreeView } from '../../src/inspect/history';
import { get } from '../api';
import { clear, h, short } from '../dom';
import { renderDiff } from '../diff-view';
import { highlightLater, languageOf } from '../highlight';

const enc = encodeURIComponent;

function fileContent(file: FileView): HTMLElement {
  const head = h('header.file-head', {}, h('span.path', {}, file.path), h('span.sub', {}, ` ${file.size} bytes · ${file.mode} · blob ${short(file.oid)}`), file.crlf ? h('span.badge.crlf', {}, 'CRLF') : null);
  if (file.binary) return h('div.file-view', {}, head, h('pre.summary', {}, `Binary file, ${file.size} bytes.`));
  if (file.large) return h('div.file-view', {}, head, h('pre.summary', {}, `Large file, ${file.size} bytes: not shown.`));
  const lines = file.text!.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const code = h('code.source');
  const numbers = h('pre.line-numbers', { 'aria-hidden': 'true' }, lines.map((_, i) => `${i + 1}`).join('\n'));
  const rows = lines.map((line) => {
    const cr = line.endsWith('\r');
    return h('span.line', {}, cr ? line.slice(0, -1) : line, cr ? h('span.cr', { title: 'carriage return' }, '␍') : null);
  });
  for (const row of rows) code.append(row, '\n');
  const language = languageOf(file.path);
  highlightLater(
    rows.map((el) => ({ el, language })),
    () => undefined,
  );
  return h('div.file-view', {}, head, h('div.code', {}, numbers, h('pre.content', {}, code)));
}

export function treeView(app: HTMLElement, commit: string, path: string | undefined): () => void {
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
      const file = await get<FileView>(`/commits/${enc(commit)}/file`, { path });
      clear(content);
      content.append(fileContent(file));
    }
    app.dataset.loaded = 'tree';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}

export function compareView(app: HTMLElement, from: string, to: string): () => void {
  void (async () => {
    const diff = await get<CompareView>('/compare', { from, to });
    clear(app);
    app.append(h('section.compare-head', {}, h('h2', {}, 'Compare ', h('code', {}, short(diff.from)), ' … ', h('code', {}, short(diff.to)))), renderDiff(diff.files, 'side-by-side'));
    app.dataset.loaded = 'compare';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}
