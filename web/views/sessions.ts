/**
 * The sessions list: rows arrive streamed (JSON lines) and are drawn as they come, each frame's
 * rows as one piece of markup. Rows are laid out on their own (a grid per row, not an auto-sized
 * table that lays out every row again whenever one changes) and rows off screen skip layout and
 * paint (`content-visibility: auto` in the stylesheet), so 1,000 rows cost about what a screenful
 * does. Filter by text (id, first message, base) and by state.
 *
 * The merge check (a dry-run merge into the session's base branch, a few at a time) is computed
 * lazily: for the rows that come near the screen, once the list has been painted; choosing a
 * merge state in the filter checks every row.
 */
import type { MergeResult } from '../../src/branches';
import type { SessionRow } from '../../src/inspect/session-rows';
import { get, stream } from '../api';
import { afterPaint, h, html, short, when, type Html } from '../dom';

type MergeState = 'checking' | 'clean' | 'conflict' | 'up-to-date' | 'error';

interface Row {
  data: SessionRow;
  tr: HTMLTableRowElement;
  merge?: MergeState;
  /** Waiting for its merge check, or being checked. */
  queued?: boolean;
}

const STATES = [
  ['all', 'all sessions'],
  ['pending', 'with pending changes'],
  ['clean', 'merge cleanly'],
  ['conflict', 'with conflicts'],
  ['up-to-date', 'already merged'],
  ['resumed', 'resumed from another'],
] as const;

const MERGE_FILTERS = new Set(['clean', 'conflict', 'up-to-date']);
/** Merge checks running at once (each is a dry-run merge on the server). */
const CHECKS_AT_ONCE = 2;

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

function mergeCell(state: MergeState | undefined, detail = ''): Html {
  const label = { checking: 'checking…', clean: 'merges cleanly', conflict: `conflict${detail}`, 'up-to-date': 'already merged', error: 'cannot check' }[state ?? 'checking'];
  return html`<span class="merge ${state ?? 'checking'}">${label}</span>`;
}

function rowHtml(d: SessionRow): Html {
  const id = encodeURIComponent(d.id);
  return html`<tr data-session="${d.id}" role="row"><td role="cell"><a class="session-link" href="#/s/${id}">${d.id}</a>${d.parent ? html`<div class="sub">resumed from ${d.parent.session} turn ${d.parent.turn}</div>` : ''}</td><td class="title" role="cell">${d.error ? html`<span class="error">${d.error}</span>` : d.title}</td><td role="cell">${d.base.ref ?? ''} <code>${short(d.base.commit)}</code></td><td class="num" role="cell">${d.turns}</td><td role="cell"><code>${short(d.head)}</code></td><td role="cell">${when(d.updatedAt)}</td><td class="num" role="cell">${d.pending > 0 ? html`<span class="pending">${d.pending} file(s)</span>` : '—'}</td><td class="merge-cell" role="cell">${mergeCell('checking')}</td></tr>`;
}

export function sessionsView(app: HTMLElement): () => void {
  const rows: Row[] = [];
  const byElement = new Map<Element, Row>();
  const filter = h('input.filter', { type: 'search', placeholder: 'filter: id, message, base…', 'aria-label': 'filter sessions' });
  const select = h('select.state', { 'aria-label': 'state' }, ...STATES.map(([value, label]) => h('option', { value }, label)));
  const count = h('span.count');
  const tbody = h('tbody', { role: 'rowgroup' });
  // Rows are grids (see the stylesheet), which takes the table's own semantics away: the roles give them back.
  const table = h(
    'table.sessions',
    { role: 'table' },
    h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' }, ...['session', 'first message', 'base', 'turns', 'head', 'last activity', 'pending', 'merge'].map((c) => h('th', { role: 'columnheader' }, c)))),
    tbody,
  );
  app.replaceChildren(h('section.toolbar', {}, filter, select, count), table);
  let stopped = false;

  const queue: Row[] = [];
  let running = 0;
  let checking = false; // false until the list has been painted: checks never delay it

  const refilter = () => {
    const text = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const visible = matches(row, text, select.value);
      if (row.tr.hidden === visible) row.tr.hidden = !visible;
      if (visible) shown++;
    }
    const left = MERGE_FILTERS.has(select.value) ? rows.filter((r) => r.merge === undefined).length : 0;
    count.textContent = `${shown} of ${rows.length} session(s)${left ? ` · checking ${left} merge(s)…` : ''}`;
  };

  // Merge results are drawn in one batch per frame.
  let finished: Array<{ row: Row; detail: string }> = [];
  let drawScheduled = false;
  const drawFinished = () => {
    drawScheduled = false;
    for (const { row, detail } of finished) row.tr.querySelector('.merge-cell')!.innerHTML = mergeCell(row.merge, detail).value;
    finished = [];
    refilter();
  };

  const check = async (row: Row) => {
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
    finished.push({ row, detail });
    if (!drawScheduled) {
      drawScheduled = true;
      requestAnimationFrame(drawFinished);
    }
  };

  const pump = () => {
    while (checking && !stopped && running < CHECKS_AT_ONCE && queue.length) {
      const row = queue.shift()!;
      running++;
      void check(row).finally(() => {
        running--;
        pump();
      });
    }
  };

  const enqueue = (row: Row) => {
    if (row.queued || row.merge !== undefined) return;
    row.queued = true;
    queue.push(row);
    pump();
  };

  // A row is checked when it comes near the screen.
  const nearScreen = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        nearScreen.unobserve(entry.target);
        const row = byElement.get(entry.target);
        if (row) enqueue(row);
      }
    },
    { rootMargin: '300px 0px' },
  );

  const onFilter = () => {
    if (MERGE_FILTERS.has(select.value)) for (const row of rows) enqueue(row);
    refilter();
  };
  filter.addEventListener('input', refilter);
  select.addEventListener('change', onFilter);

  const addRows = (batch: SessionRow[]) => {
    if (batch.length === 0) return;
    const start = tbody.rows.length;
    tbody.insertAdjacentHTML('beforeend', batch.map((d) => rowHtml(d).value).join(''));
    const trs = tbody.rows;
    batch.forEach((data, i) => {
      const tr = trs[start + i]!;
      const row: Row = { data, tr };
      rows.push(row);
      byElement.set(tr, row);
      nearScreen.observe(tr);
      if (MERGE_FILTERS.has(select.value)) enqueue(row);
    });
  };

  const abort = new AbortController();
  void (async () => {
    let pendingRows: SessionRow[] = [];
    let scheduled = false;
    // The rows of one frame are added as one piece of markup.
    await stream<SessionRow | { error: { code: string; message: string } }>('/sessions', (d) => {
      if (stopped) return;
      // The server ends the stream with an error line when reading a session failed midway.
      if ('error' in d && typeof d.error === 'object') return void app.append(h('p.refused', {}, `error ${d.error.code}: ${d.error.message}`));
      pendingRows.push(d as SessionRow);
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(() => {
        addRows(pendingRows);
        pendingRows = [];
        scheduled = false;
        refilter();
      });
    }, abort.signal);
    if (stopped) return;
    addRows(pendingRows);
    pendingRows = [];
    refilter();
    app.dataset.loaded = 'sessions';
    if (rows.length === 0) app.append(h('p.empty', {}, 'No sessions in this repository. Start one with forge session new or forge run.'));
    afterPaint(() => {
      checking = true;
      pump();
    });
  })().catch((e) => {
    if (!stopped) app.append(h('p.refused', {}, String((e as Error).message)));
  });
  return () => {
    stopped = true;
    abort.abort();
    nearScreen.disconnect();
  };
}
