/**
 * A session: its timeline (one row per commit: time, the user message, the assistant's text,
 * each tool call with arguments and result, files with +/- counts, the commit), the undo and
 * resume points, the merge preview, and the actions (merge, rebase, undo, resume, discard).
 */
import type { MergeResult, RebaseResult } from '../../src/branches';
import type { UndoResult } from '../../src/inspect/actions';
import type { Timeline, TimelineTurn } from '../../src/inspect/timeline';
import type { ToolCallRecord } from '../../src/session';
import { get, post } from '../api';
import { confirmAction } from '../confirm';
import { clear, h, short, when, type Child } from '../dom';
import { conflictReport } from './conflicts';

const enc = encodeURIComponent;

function json(value: unknown, max = 4000): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? '';
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

function toolCall(c: ToolCallRecord): HTMLElement {
  return h(
    `div.tool-call.${c.ok ? 'ok' : 'failed'}`,
    { dataset: { tool: c.tool } },
    h('div.tool-head', {}, h('span.tool-name', {}, c.tool), c.ok ? h('span.badge.ok', {}, 'ok') : h('span.badge.error', {}, `error ${c.error?.code ?? ''}`)),
    h('details', {}, h('summary', {}, 'arguments'), h('pre.args', {}, json(c.args))),
    c.ok ? h('details', {}, h('summary', {}, 'result'), h('pre.result', {}, json(c.output))) : h('pre.error-message', {}, c.error?.message ?? ''),
  );
}

function turnRow(t: TimelineTurn, timeline: Timeline, first: boolean): HTMLElement {
  const user = t.messages.filter((m) => m.role === 'user');
  const assistant = t.messages.filter((m) => m.role === 'assistant' && m.content.trim() !== '');
  const isUndoPoint = timeline.undo !== null && timeline.undo.turn === t.turn;
  return h(
    'article.turn',
    { dataset: { turn: t.turn, commit: t.commit } },
    h(
      'header.turn-head',
      {},
      h('span.turn-no', {}, t.turn === 0 || first ? (timeline.parent && first ? `resumed at turn ${t.turn}` : 'start') : `turn ${t.turn}`),
      h('span.time', {}, when(t.time)),
      h('a.commit', { href: `#/c/${t.commit}`, title: 'the conversation and the diff of this turn' }, short(t.commit)),
      h('span.summary', {}, t.summary),
      h('a.button', { href: `#/tree/${t.commit}` }, 'files at this commit'),
      h('button.resume', { type: 'button', onclick: () => resumeFrom(t) }, 'resume from here'),
      isUndoPoint ? h('span.badge.undo-point', { title: 'forge undo would revert this edit' }, `undo point: ${timeline.undo!.summary}`) : null,
    ),
    ...user.map((m) => h('div.msg.user', {}, h('span.role', {}, 'user'), h('div.text', {}, m.content))),
    ...assistant.map((m) => h('div.msg.assistant', {}, h('span.role', {}, 'assistant'), h('div.text', {}, m.content))),
    t.toolCalls.length ? h('div.tool-calls', {}, ...t.toolCalls.map(toolCall)) : null,
    t.files.length
      ? h(
          'ul.files',
          {},
          ...t.files.map((f) =>
            h('li', {}, h('span.path', {}, f.path), ' ', f.binary ? h('span.badge.binary', {}, 'binary') : h('span.counts', {}, h('span.plus', {}, `+${f.added}`), ' ', h('span.minus', {}, `-${f.removed}`))),
          ),
        )
      : null,
  );
}

function resumeFrom(t: TimelineTurn): void {
  const id = h('input', { type: 'text', placeholder: 'new session id (default: a new UUID)', 'aria-label': 'new session id' });
  confirmAction(
    `Resume from ${short(t.commit)}`,
    [h('p', {}, `Starts a NEW session on a new branch from commit ${short(t.commit)} (turn ${t.turn}), with the conversation as it was then. This session stays as it is.`), id],
    async () => {
      const out = await post<{ id: string; branch: string; commit: string }>('/resume', { from: t.commit, ...(id.value.trim() ? { id: id.value.trim() } : {}) });
      return [h('p', {}, `Created session ${out.id} on ${out.branch}: commit `, h('code.result-commit', {}, out.commit)), h('a', { href: `#/s/${enc(out.id)}` }, 'open it')];
    },
  );
}

function mergeOutcome(r: MergeResult): Child {
  const target = r.target.ref.replace(/^refs\/heads\//, '');
  switch (r.status) {
    case 'up-to-date':
      return h('p.outcome.up-to-date', {}, `Already up to date: ${target} contains this session.`);
    case 'fast-forward':
      return h('p.outcome.clean', {}, r.dryRun ? `Clean: ${target} would fast-forward to ` : `Fast-forwarded ${target} to `, h('code.result-commit', {}, r.commit ?? ''));
    case 'merged':
      return r.dryRun
        ? h('p.outcome.clean', {}, `Clean: merging into ${target} would succeed (tree `, h('code', {}, short(r.tree)), ').')
        : h('p.outcome.clean', {}, `Merged into ${target}: commit `, h('code.result-commit', {}, r.commit ?? ''));
    case 'conflict':
      return h('div', {}, h('p.outcome.conflict', {}, `Conflict: ${r.conflicts!.length} conflicted path(s) merging into ${target}; nothing was written.`), conflictReport(r.conflicts!));
  }
}

function rebaseOutcome(r: RebaseResult): Child {
  if (r.status === 'conflict') return h('div', {}, h('p.outcome.conflict', {}, `Conflict replaying ${short(r.stoppedAt?.commit)} (${r.stoppedAt?.subject}); the session branch was left as it was.`), conflictReport(r.conflicts ?? []));
  if (r.status === 'up-to-date') return h('p.outcome.up-to-date', {}, `Already based on ${r.onto.ref}.`);
  return h('p.outcome.clean', {}, `Rebased ${r.replayed.length} commit(s) onto ${r.onto.ref}: head `, h('code.result-commit', {}, r.after));
}

function mergePanel(timeline: Timeline, branches: string[], reload: () => void): HTMLElement {
  const defaultTarget = timeline.base.ref && branches.includes(timeline.base.ref) ? timeline.base.ref : branches[0];
  const target = h('select.target', { 'aria-label': 'target branch' }, ...branches.map((b) => h('option', { value: b, selected: b === defaultTarget }, b)));
  const noFf = h('input', { type: 'checkbox', 'aria-label': 'no fast-forward' });
  const out = h('div.preview-result');
  const preview = async () => {
    clear(out);
    out.append(h('p', {}, 'Computing the merge (dry run)…'));
    try {
      const r = await get<MergeResult>(`/sessions/${enc(timeline.session)}/merge-preview`, { into: target.value });
      clear(out);
      out.append(h("div", {}, mergeOutcome(r)));
    } catch (e) {
      clear(out);
      out.append(h('p.refused', {}, String((e as Error).message)));
    }
  };
  target.addEventListener('change', () => void preview());
  const mergeButton = h('button.merge', { type: 'button' }, 'Merge…');
  mergeButton.addEventListener('click', () =>
    confirmAction(
      `Merge ${timeline.branch} into ${target.value}`,
      h('p', {}, `Moves branch ${target.value} to include this session's ${timeline.turns.length - 1} turn(s) (head ${short(timeline.head)}): `, noFf.checked ? 'always with a merge commit (--no-ff).' : 'a fast-forward when possible, else a merge commit.', ' A conflict moves nothing.'),
      async () => mergeOutcome(await post<MergeResult>(`/sessions/${enc(timeline.session)}/merge`, { into: target.value, noFf: noFf.checked })),
      reload,
    ),
  );
  const rebaseButton = h('button.rebase', { type: 'button' }, 'Rebase…');
  rebaseButton.addEventListener('click', () =>
    confirmAction(
      `Rebase ${timeline.branch} onto ${target.value}`,
      h('p', {}, `Replays this session's commits onto the head of ${target.value}. The session branch moves only if every commit replays cleanly.`),
      async () => rebaseOutcome(await post<RebaseResult>(`/sessions/${enc(timeline.session)}/rebase`, { onto: target.value })),
      reload,
    ),
  );
  void preview();
  return h('section.merge-panel', {}, h('h3', {}, 'Merge preview'), h('div.row', {}, 'into ', target, h('label', {}, noFf, ' --no-ff'), mergeButton, rebaseButton), out);
}

function actions(timeline: Timeline, reload: () => void): HTMLElement {
  const undo = h('button.undo', { type: 'button', disabled: timeline.undo === null }, 'Undo last edit…');
  undo.addEventListener('click', () =>
    confirmAction(
      'Undo the last edit',
      h('p', {}, `Reverts "${timeline.undo?.summary}" (turn ${timeline.undo?.turn}, ${timeline.undo?.tool}) if its files are unchanged since, as a new commit on ${timeline.branch}.`),
      async () => {
        const r = await post<UndoResult>(`/sessions/${enc(timeline.session)}/undo`);
        return h('p', {}, `Reverted ${r.reverted} file(s): ${r.paths.join(', ')}; committed turn ${r.turn}: `, h('code.result-commit', {}, r.commit));
      },
      reload,
    ),
  );
  const discard = h('button.discard', { type: 'button', disabled: timeline.pending.length === 0 }, `Discard pending (${timeline.pending.length})…`);
  discard.addEventListener('click', () =>
    confirmAction(
      'Discard pending changes',
      h('p', {}, `Drops the uncommitted changes to ${timeline.pending.join(', ')}. The branch stays at ${short(timeline.head)}.`),
      async () => {
        const r = await post<{ discarded: string[]; commit: string }>(`/sessions/${enc(timeline.session)}/discard`);
        return h('p', {}, `Discarded ${r.discarded.length} change(s); the session stays at `, h('code.result-commit', {}, r.commit));
      },
      reload,
    ),
  );
  return h('div.actions', {}, undo, discard);
}

function compareForm(timeline: Timeline): HTMLElement {
  const options = () => timeline.turns.map((t) => h('option', { value: t.commit }, `${t.turn === 0 ? 'start' : `turn ${t.turn}`} ${short(t.commit)}`));
  const from = h('select.from', { 'aria-label': 'compare from' }, ...options());
  const to = h('select.to', { 'aria-label': 'compare to' }, ...options());
  to.selectedIndex = timeline.turns.length - 1;
  const go = h('button', { type: 'button', onclick: () => (location.hash = `#/compare/${from.value}/${to.value}`) }, 'Compare');
  return h('div.compare-form', {}, 'compare ', from, ' with ', to, go);
}

export function timelineView(app: HTMLElement, id: string): { stop: () => void; refresh: () => void } {
  let stopped = false;
  const load = async () => {
    const [timeline, { branches }] = await Promise.all([get<Timeline>(`/sessions/${enc(id)}/timeline`), get<{ branches: string[] }>('/branches')]);
    if (stopped) return;
    const y = window.scrollY;
    clear(app);
    app.append(
      h(
        'section.session-head',
        {},
        h('h2', {}, `session ${timeline.session}`),
        h(
          'dl',
          {},
          h('dt', {}, 'branch'),
          h('dd', {}, timeline.branch),
          h('dt', {}, 'base'),
          h('dd', {}, timeline.base.ref ?? '', ' ', h('code', {}, short(timeline.base.commit))),
          h('dt', {}, 'head'),
          h('dd', {}, h('code.head', {}, short(timeline.head))),
          h('dt', {}, 'turns'),
          h('dd.turn-count', {}, String(timeline.turns.filter((t) => t.turn > 0).length)),
          timeline.parent ? [h('dt', {}, 'resumed from'), h('dd', {}, h('a', { href: `#/s/${enc(timeline.parent.session)}` }, timeline.parent.session), ` turn ${timeline.parent.turn}`)] : null,
          h('dt', {}, 'pending'),
          h('dd', {}, timeline.pending.length ? timeline.pending.join(', ') : 'none'),
        ),
        actions(timeline, () => void load()),
        compareForm(timeline),
      ),
      mergePanel(timeline, branches, () => void load()),
      h('section.timeline', {}, ...timeline.turns.map((t, i) => turnRow(t, timeline, i === 0))),
    );
    window.scrollTo(0, y);
    app.dataset.loaded = 'timeline';
  };
  void load().catch((e) => {
    clear(app);
    app.append(h('p.refused', {}, String((e as Error).message)));
  });
  return {
    stop: () => {
      stopped = true;
    },
    refresh: () => void load(),
  };
}
