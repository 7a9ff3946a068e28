/**
 * A turn: its conversation in order (text and tool calls interleaved, each call a summary that
 * opens to its arguments and result) beside the turn's diff (unified or side by side), with the
 * earlier turns' messages folded above. `#/c/<commit>/call/<i>` picks out the call that wrote a
 * line (the blame view links there).
 */
import type { TurnView } from '../../src/inspect/history';
import type { Message, ToolCallRecord } from '../../src/session';
import { get } from '../api';
import { clear, h, short } from '../dom';
import type { DiffLayout } from '../diff-view';
import { loadCodeView } from '../lazy';
import { inZone, viewerTime } from '../time';
import { readable } from './timeline';

let layout: DiffLayout = 'line-by-line';

function message(m: Message, current: number): HTMLElement {
  const calls = m.toolCalls?.map((c) => h('div.call', {}, `→ ${c.tool}`)) ?? [];
  const cls = `div.msg.${m.role}${m.turn === current ? '.current' : ''}${m.isError ? '.error' : ''}` as const;
  const role = h('span.role', {}, `${m.role} · turn ${m.turn}`);
  // A tool result can be a whole file or a test run's output: folded, its first line showing.
  if (m.role === 'tool') return h(cls, {}, role, h('details', {}, h('summary', {}, m.content.slice(0, 100)), h('pre.text', {}, m.content)));
  return h(cls, {}, role, h('div.text', {}, m.content), ...calls);
}

function callNode(call: ToolCallRecord, index: number, summary: TurnView['conversation'][number] & { kind: 'call' }, picked: boolean): HTMLElement {
  const s = summary.summary;
  return h(
    `div.tool-call.${call.ok ? 'ok' : 'failed'}${picked ? '.picked' : ''}` as 'div.x',
    { dataset: { tool: call.tool, index: String(index) } },
    h('div.tool-head', {}, h('span.tool-name', {}, call.tool), s.path ? [' ', h('span.path', {}, s.path)] : null, s.change ? [' ', h('span.change', {}, s.change)] : null, call.ok ? h('span.badge.ok', {}, 'ok') : h('span.badge.error', {}, `error ${s.error ?? ''}`)),
    h('details', { open: picked }, h('summary', {}, 'arguments'), h('pre.args', {}, readable(call.args))),
    call.ok ? h('details', {}, h('summary', {}, 'result'), h('pre.result', {}, readable(call.output))) : h('pre.error-message', {}, call.error?.message ?? ''),
  );
}

export function turnView(app: HTMLElement, commit: string, pickedCall?: number): () => void {
  void (async () => {
    const [turn, { renderDiff }] = await Promise.all([get<TurnView>(`/commits/${encodeURIComponent(commit)}/turn`), loadCodeView()]);
    clear(app);
    const earlier = turn.messages.filter((m) => m.turn !== turn.turn);
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
        h('h2', {}, `session `, h('a.session-link', { href: `#/s/${encodeURIComponent(turn.session)}/turn/${turn.turn}` }, turn.session), ` · ${turn.turn === 0 ? 'start' : `turn ${turn.turn}`} · `, h('code', {}, short(turn.commit))),
        h('span.author', { title: turn.author.email }, turn.author.name),
        turn.model ? h('span.model', { title: 'model' }, turn.model) : null,
        h('time.time', { datetime: turn.author.time, title: viewerTime(turn.author.time) }, inZone(turn.author.time, turn.author.zone)),
        h('span.summary', {}, turn.summary),
        h('a.button', { href: `#/tree/${turn.commit}` }, 'files at this commit'),
        toggle,
      ),
      h(
        'div.split',
        {},
        h(
          'section.conversation',
          {},
          h('h3', {}, 'Conversation of this turn'),
          earlier.length ? h('details.earlier', {}, h('summary', {}, `${earlier.length} message(s) of earlier turns`), ...earlier.map((m) => message(m, turn.turn))) : null,
          h(
            'div.conversation-items',
            {},
            ...turn.conversation.map((item) =>
              item.kind === 'message' ? h(`div.msg.${item.role}.current` as 'div.x', {}, h('span.role', {}, `${item.role} · turn ${turn.turn}`), h('div.text', {}, item.text)) : callNode(turn.toolCalls[item.index]!, item.index, item, item.index === pickedCall),
            ),
          ),
        ),
        h('section.changes', {}, h('h3', {}, `Changes of this turn (${turn.files.length} file(s))`), diffBox),
      ),
    );
    draw();
    app.querySelector('.tool-call.picked')?.scrollIntoView({ block: 'center' });
    app.dataset.loaded = 'turn';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}
