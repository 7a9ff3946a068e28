/** A turn: the conversation as of its commit beside the turn's diff (unified or side by side). */
import type { TurnView } from '../../src/inspect/history';
import type { Message } from '../../src/session';
import { get } from '../api';
import { clear, h, short } from '../dom';
import type { DiffLayout } from '../diff-view';
import { loadCodeView } from '../lazy';

let layout: DiffLayout = 'line-by-line';

function message(m: Message, current: number): HTMLElement {
  const calls = m.toolCalls?.map((c) => h('div.call', {}, `→ ${c.tool}`)) ?? [];
  const cls = `div.msg.${m.role}${m.turn === current ? '.current' : ''}${m.isError ? '.error' : ''}` as const;
  const role = h('span.role', {}, `${m.role} · turn ${m.turn}`);
  // A tool result can be a whole file or a test run's output: folded, its first line showing.
  if (m.role === 'tool') return h(cls, {}, role, h('details', {}, h('summary', {}, m.content.slice(0, 100)), h('pre.text', {}, m.content)));
  return h(cls, {}, role, h('div.text', {}, m.content), ...calls);
}

export function turnView(app: HTMLElement, commit: string): () => void {
  void (async () => {
    const [turn, { renderDiff }] = await Promise.all([get<TurnView>(`/commits/${encodeURIComponent(commit)}/turn`), loadCodeView()]);
    clear(app);
    const diffBox = h('div.diff-box');
    const toggle = h('div.layout', {}, ...(['line-by-line', 'side-by-side'] as const).map((l) => h('button', { type: 'button', dataset: { layout: l }, 'aria-pressed': String(l === layout) }, l === 'line-by-line' ? 'unified' : 'side by side')));
    const draw = () => {
      clear(diffBox);
      diffBox.append(renderDiff(turn.files, layout));
      for (const b of toggle.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.layout === layout));
    };
    toggle.addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest('button');
      if (!b) return;
      layout = b.dataset.layout as DiffLayout;
      draw();
    });
    app.append(
      h(
        'section.turn-head',
        {},
        h('h2', {}, `session `, h('a', { href: `#/s/${encodeURIComponent(turn.session)}` }, turn.session), ` · ${turn.turn === 0 ? 'start' : `turn ${turn.turn}`} · `, h('code', {}, short(turn.commit))),
        h('a.button', { href: `#/tree/${turn.commit}` }, 'files at this commit'),
        toggle,
      ),
      h(
        'div.split',
        {},
        h('section.conversation', {}, h('h3', {}, 'Conversation as of this commit'), ...turn.messages.map((m) => message(m, turn.turn)), turn.toolCalls.length ? h('p.sub', {}, `${turn.toolCalls.length} tool call(s) this turn`) : null),
        h('section.changes', {}, h('h3', {}, `Changes of this turn (${turn.files.length} file(s))`), diffBox),
      ),
    );
    draw();
    app.dataset.loaded = 'turn';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}
