/**
 * The sessions list: rows arrive streamed (JSON lines) and are drawn as they come; the merge
 * check (a dry-run merge into the session's base branch) runs for the rows afterwards, a few
 * at a time, and fills the last column. Filter by text (id, first message, base) and by state.
 */
import type { MergeResult } from '../../src/branches';
import type { SessionRow } from '../../src/inspect/session-rows';
import { get, stream } from '../api';
import { clear, h, short, when } from '../dom';

type MergeState = 'checking' | 'clean' | 'conflict' | 'up-to-date' | 'error';

interface Row {
  data: SessionRow;
  tr: HTMLTableRowElement;
  merge?: MergeState;
}

const STATES = [
  ['all', 'all sessions'],
  ['pending', 'with pending changes'],
  ['clean', 'merge cleanly'],
  ['conflict', 'with conflicts'],
  ['up-to-date', 'already merged'],
  ['resumed', 'resumed from another'],
] as const;

function matches(row: Row, text: string, state: string): boolean {
  const d = row.data;
  if (text && !`${d.id} ${d.title} ${d.base.ref ?? ''} ${d.head}`.toLowerCase().includes(text)) return false;
  switch (state) {
    case 'pending':
      return d.pending > 0;
    case 'resumed':
      return d.parent !== undefined;
    case 'clean':
    case 'conflict':
    case 'up-to-date':
      return row.merge === state;
    default:
      return true;
  }
}

function mergeCell(state: MergeState | undefined, detail = ''): HTMLElement {
  const label = { checking: 'checking…', clean: 'merges cleanly', conflict: `conflict${detail}`, 'up-to-date': 'already merged', error: 'cannot check' }[state ?? 'checking'];
  return h(`span.merge.${state ?? 'checking'}`, {}, label);
}

export function sessionsView(app: HTMLElement): () => void {
  const rows: Row[] = [];
  const filter = h('input.filter', { type: 'search', placeholder: 'filter: id, message, base…', 'aria-label': 'filter sessions' });
  const select = h('select.state', { 'aria-label': 'state' }, ...STATES.map(([value, label]) => h('option', { value }, label)));
  const count = h('span.count');
  const tbody = h('tbody');
  const table = h(
    'table.sessions',
    {},
    h('thead', {}, h('tr', {}, ...['session', 'first message', 'base', 'turns', 'head', 'last activity', 'pending', 'merge'].map((c) => h('th', {}, c)))),
    tbody,
  );
  clear(app);
  app.append(h('section.toolbar', {}, filter, select, count), table);
  let stopped = false;

  const refilter = () => {
    const text = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const visible = matches(row, text, select.value);
      row.tr.hidden = !visible;
      if (visible) shown++;
    }
    count.textContent = `${shown} of ${rows.length} session(s)`;
  };
  filter.addEventListener('input', refilter);
  select.addEventListener('change', refilter);

  const addRow = (d: SessionRow) => {
    const tr = h(
      'tr',
      { dataset: { session: d.id } },
      h('td', {}, h('a.session-link', { href: `#/s/${encodeURIComponent(d.id)}` }, d.id), d.parent ? h('div.sub', {}, `resumed from ${d.parent.session} turn ${d.parent.turn}`) : null),
      h('td.title', {}, d.error ? h('span.error', {}, d.error) : d.title),
      h('td', {}, d.base.ref ?? '', ' ', h('code', {}, short(d.base.commit))),
      h('td.num', {}, d.turns),
      h('td', {}, h('code', {}, short(d.head))),
      h('td', {}, when(d.updatedAt)),
      h('td.num', {}, d.pending > 0 ? h('span.pending', {}, `${d.pending} file(s)`) : '—'),
      h('td.merge-cell', {}, mergeCell('checking')),
    );
    const row: Row = { data: d, tr };
    rows.push(row);
    tbody.append(tr);
    return row;
  };

  const checkMerges = async () => {
    let next = 0;
    const worker = async () => {
      while (!stopped && next < rows.length) {
        const row = rows[next++]!;
        let state: MergeState = 'error';
        let detail = '';
        try {
          const result = await get<MergeResult>(`/sessions/${encodeURIComponent(row.data.id)}/merge-preview`);
          state = result.status === 'conflict' ? 'conflict' : result.status === 'up-to-date' ? 'up-to-date' : 'clean';
          if (result.conflicts) detail = ` (${result.conflicts.length} path${result.conflicts.length === 1 ? '' : 's'})`;
        } catch {
          state = 'error';
        }
        row.merge = state;
        const cell = row.tr.querySelector('.merge-cell')!;
        clear(cell);
        cell.append(mergeCell(state, detail));
      }
      refilter();
    };
    await Promise.all([worker(), worker()]);
    refilter();
  };

  void (async () => {
    let pendingRows: SessionRow[] = [];
    let scheduled = false;
    // Rows are added in batches per frame: a thousand single appends would each trigger layout.
    await stream<SessionRow | { error: { code: string; message: string } }>('/sessions', (d) => {
      // The server ends the stream with an error line when reading a session failed midway.
      if ('error' in d && typeof d.error === 'object') return void app.append(h('p.refused', {}, `error ${d.error.code}: ${d.error.message}`));
      pendingRows.push(d as SessionRow);
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(() => {
        for (const r of pendingRows) addRow(r);
        pendingRows = [];
        scheduled = false;
        refilter();
      });
    });
    for (const r of pendingRows) addRow(r);
    pendingRows = [];
    refilter();
    app.dataset.loaded = 'sessions';
    if (rows.length === 0) app.append(h('p.empty', {}, 'No sessions in this repository. Start one with forge session new or forge run.'));
    await checkMerges();
  })();
  return () => {
    stopped = true;
  };
}
