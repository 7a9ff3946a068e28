/** A merge or rebase conflict report: each path with its kind and message, each hunk's base, ours and theirs side by side. */
import type { MergeConflict } from '../../src/branches';
import { h } from '../dom';

function side(label: string, range: { start: number; count: number }, text: string): HTMLElement {
  return h('div.side', {}, h('div.side-head', {}, `${label} ${range.start},${range.count}`), h('pre', {}, text === '' ? '(nothing)' : text));
}

export function conflictReport(conflicts: readonly MergeConflict[]): HTMLElement {
  return h(
    'div.conflicts',
    {},
    ...conflicts.map((c) =>
      h(
        'section.conflict',
        { dataset: { path: c.path } },
        h('header', {}, h('span.path', {}, c.path), ' ', h('span.badge.kind', {}, c.kind)),
        h('p.message', {}, c.message),
        ...(c.hunks ?? []).map((hunk) => h('div.hunk', {}, side('base', hunk.base, hunk.base.text), side('ours', hunk.ours, hunk.ours.text), side('theirs', hunk.theirs, hunk.theirs.text))),
      ),
    ),
  );
}
