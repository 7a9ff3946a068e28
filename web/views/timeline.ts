/**
 * A session: its timeline (one row per commit: time, the user message, the assistant's text,
 * each tool call with arguments and result, files with +/- counts, the commit), the undo and
 * resume points, the merge preview, and the actions (merge, rebase, undo, resume, discard).
 *
 * The timeline is streamed (`/sessions/:id/turns`: a header line, then a line per turn as the
 * server computes it) and drawn as it comes, each frame's turns as one piece of markup; turns off
 * screen skip layout and paint (`content-visibility: auto` in the stylesheet). A tool call's
 * arguments and result are formatted when their fold is first opened. A live update redraws only
 * the turns that changed (a new turn, the undo point moving): the others stay as they are, with
 * their folds and the scroll position.
 */
import type { MergeResult, RebaseResult } from '../../src/branches';
import type { UndoResult } from '../../src/inspect/actions';
import type { ConversationItem } from '../../src/inspect/conversation';
import type { SessionDiff } from '../../src/inspect/review';
import type { TimelineHeader, TimelineTurn } from '../../src/inspect/timeline';
import type { ToolCallRecord } from '../../src/session';
import { get, post, stream } from '../api';
import { confirmAction } from '../confirm';
import { afterPaint, clear, h, html, short, type Child, type Html } from '../dom';
import { loadCodeView } from '../lazy';
import { fingerprint, loadMarks, saveMarks, type Marks } from '../review-marks';
import { inZone, viewerTime } from '../time';
import { conflictReport } from './conflicts';

const enc = encodeURIComponent;

/** The branches a session can merge into, with the head of each as this page saw it. */
type Branches = { branches: string[]; heads: Record<string, string> };

/**
 * A call's arguments or result as a person reads them: an object's fields one by one, a string
 * field as its text (a file's content with its lines, not a JSON string full of \n), anything
 * else as indented JSON.
 */
export function readable(value: unknown, max = 8000): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    text = Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => (typeof v === 'string' ? (v.includes('\n') ? `${key}:\n${v.replace(/^/gm, '  ')}` : `${key}: ${v}`) : `${key}: ${JSON.stringify(v, null, 2)?.replace(/\n/g, '\n  ') ?? ''}`))
      .join('\n');
  } else text = JSON.stringify(value, null, 2) ?? '';
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** A tool call; its arguments and result are filled in when their fold opens (`fillFold`). */
function toolCallHtml(c: ToolCallRecord, index: number, item: Extract<ConversationItem, { kind: 'call' }> | undefined): Html {
  const fold = (part: 'args' | 'result', label: string) => html`<details data-call="${index}" data-part="${part}"><summary>${label}</summary><pre class="${part}"></pre></details>`;
  const s = item?.summary;
  return html`<div class="tool-call ${c.ok ? 'ok' : 'failed'}" data-tool="${c.tool}" data-index="${index}"><div class="tool-head"><span class="tool-name">${c.tool}</span>${s?.path ? html` <span class="path">${s.path}</span>` : ''}${s?.change ? html` <span class="change">${s.change}</span>` : ''}${c.ok ? html`<span class="badge ok">ok</span>` : html`<span class="badge error">error ${c.error?.code ?? ''}</span>`}</div>${fold('args', 'arguments')}${c.ok ? fold('result', 'result') : html`<pre class="error-message">${c.error?.message ?? ''}</pre>`}</div>`;
}

function messageHtml(role: string, text: string): Html {
  return html`<div class="msg ${role}"><span class="role">${role}</span><div class="text">${text}</div></div>`;
}

/** The turn's conversation in order: text and calls interleaved as they happened. */
function conversationHtml(t: TimelineTurn): Html {
  return html`<div class="conversation-items">${t.conversation.map((item) => (item.kind === 'message' ? messageHtml(item.role, item.text) : toolCallHtml(t.toolCalls[item.index]!, item.index, item)))}</div>`;
}

function turnHtml(t: TimelineTurn, timeline: TimelineHeader, first: boolean, marks: Marks, seenAtOpen: string[] | null): string {
  const isUndoPoint = timeline.undo !== null && timeline.undo.turn === t.turn;
  const label = t.turn === 0 || first ? (timeline.parent && first ? `resumed at turn ${t.turn}` : 'start') : `turn ${t.turn}`;
  const isNew = seenAtOpen !== null && !seenAtOpen.includes(t.commit);
  const viewed = marks.turns.includes(t.commit);
  return html`<article class="turn${isNew ? ' new' : ''}${viewed ? ' viewed' : ''}" data-turn="${t.turn}" data-commit="${t.commit}"><header class="turn-head"><span class="turn-no">${label}</span><span class="author" title="${t.author.email}">${t.author.name}</span>${t.model ? html`<span class="model" title="model">${t.model}</span>` : ''}<time class="time" datetime="${t.time}" title="${viewerTime(t.time)}">${inZone(t.author.time, t.author.zone)}</time><a class="commit" href="#/c/${t.commit}" title="the conversation and the diff of this turn">${short(t.commit)}</a><span class="summary">${t.summary}</span>${
    isNew ? html`<span class="badge new" title="this turn was not on the page the last time you opened this session">new since you last looked</span>` : ''
  }<label class="viewed-mark"><input type="checkbox" class="turn-viewed"${viewed ? html` checked` : ''}> viewed</label><a class="button" href="#/tree/${t.commit}">files at this commit</a><button class="resume" type="button">resume from here</button>${
    isUndoPoint ? html`<span class="badge undo-point" title="forge undo would revert this edit">undo point: ${timeline.undo!.summary}</span>` : ''
  }</header>${conversationHtml(t)}${
    t.files.length
      ? html`<ul class="files">${t.files.map(
          (f) => html`<li><span class="path">${f.path}</span> ${f.binary ? html`<span class="badge binary">binary</span>` : html`<span class="counts"><span class="plus">+${f.added}</span> <span class="minus">-${f.removed}</span></span>`}</li>`,
        )}</ul>`
      : ''
  }</article>`.value;
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

/** Whether a preview lets the person merge: a clean merge or fast-forward (a conflict or nothing to merge does not). */
function mergeable(r: MergeResult): boolean {
  return r.status === 'fast-forward' || r.status === 'merged';
}

/**
 * The merge panel, the function that runs its preview (the page calls it once the timeline is
 * drawn) and the branch now chosen; `onTarget` hears of every other choice.
 */
function mergePanel(timeline: TimelineHeader, known: Branches, reload: () => void, chosen: string | undefined, onTarget: (into: string) => void): { panel: HTMLElement; preview: () => void; target: () => string } {
  const { branches, heads } = known;
  // The reviewer's earlier choice on this page (kept across live refreshes), else the server's
  // (the base branch, else HEAD's), so the page and the API agree.
  const defaultTarget = chosen !== undefined && branches.includes(chosen) ? chosen : timeline.target !== null && branches.includes(timeline.target) ? timeline.target : branches[0];
  const target = h('select.target', { 'aria-label': 'target branch' }, ...branches.map((b) => h('option', { value: b, selected: b === defaultTarget }, b)));
  const noFf = h('input', { type: 'checkbox', 'aria-label': 'no fast-forward' });
  const out = h('div.preview-result', {}, h('p', {}, 'Computing the merge (dry run)…'));
  // "Merge…" is enabled by a clean preview of the branch now selected, and only by one.
  const mergeButton = h('button.merge', { type: 'button', disabled: true, title: 'waiting for the merge preview' }, 'Merge…');
  let shown: { into: string; result: MergeResult } | undefined;
  const preview = async () => {
    const into = target.value;
    shown = undefined;
    mergeButton.disabled = true;
    mergeButton.title = 'waiting for the merge preview';
    clear(out);
    out.append(h('p', {}, 'Computing the merge (dry run)…'));
    try {
      const r = await get<MergeResult>(`/sessions/${enc(timeline.session)}/merge-preview`, { into });
      if (into !== target.value) return; // another target was picked meanwhile: its preview decides
      clear(out);
      out.append(h('div', {}, mergeOutcome(r)));
      shown = { into, result: r };
      mergeButton.disabled = !mergeable(r);
      mergeButton.title = r.status === 'conflict' ? 'the preview shows a conflict: resolve it (rebase, or merge on the command line) first' : r.status === 'up-to-date' ? `${into} already contains this session` : '';
    } catch (e) {
      clear(out);
      out.append(h('p.refused', {}, String((e as Error).message)));
      mergeButton.title = 'the merge preview failed';
    }
  };
  target.addEventListener('change', () => {
    void preview();
    onTarget(target.value);
  });
  mergeButton.addEventListener('click', () => {
    if (!shown || !mergeable(shown.result)) return;
    const { into, result } = shown;
    confirmAction(
      `Merge ${timeline.branch} into ${into}`,
      [
        h('div.verdict', {}, 'The preview said: ', mergeOutcome(result)),
        h('p', {}, `Moves branch ${into} to include this session's ${timeline.commits.length - 1} turn(s) (head ${short(timeline.head)}): `, noFf.checked ? 'always with a merge commit (--no-ff).' : 'a fast-forward when possible, else a merge commit.', ' A conflict moves nothing.'),
      ],
      // The heads this page showed: the server refuses the merge if either moved since.
      async () => mergeOutcome(await post<MergeResult>(`/sessions/${enc(timeline.session)}/merge`, { into, noFf: noFf.checked, head: timeline.head, targetHead: heads[into] })),
      reload,
      { session: timeline.session, head: timeline.head },
    );
  });
  const rebaseButton = h('button.rebase', { type: 'button' }, 'Rebase…');
  rebaseButton.addEventListener('click', () =>
    confirmAction(
      `Rebase ${timeline.branch} onto ${target.value}`,
      h('p', {}, `Replays this session's commits onto the head of ${target.value}. The session branch moves only if every commit replays cleanly.`),
      async () => rebaseOutcome(await post<RebaseResult>(`/sessions/${enc(timeline.session)}/rebase`, { onto: target.value, head: timeline.head, ontoHead: heads[target.value] })),
      reload,
      { session: timeline.session, head: timeline.head },
    ),
  );
  const merged = timeline.merged ? h('p.merged-marker', {}, h('span.badge.merged', {}, 'merged'), ` This session's head ${short(timeline.head)} is in ${timeline.merged.into} (at ${short(timeline.merged.targetHead)}).`) : null;
  return {
    preview: () => void preview(),
    target: () => target.value,
    panel: h('section.merge-panel', {}, h('h3', {}, 'Merge preview'), merged, h('div.row', {}, 'into ', target, h('label', {}, noFf, ' --no-ff'), mergeButton, rebaseButton), out),
  };
}

/** What the session diff is against, in words: the target branch and the merge base, or the session's start. */
function againstText(diff: SessionDiff): string {
  return diff.against === 'merge-base' ? `against ${diff.target} (merge base ${short(diff.from)})` : `since the session started (${short(diff.from)})${diff.target ? `: it is merged into ${diff.target}` : ''}`;
}

/**
 * The whole session's changes against the merge target chosen in the merge panel (`into`), with
 * a file list to jump through and a "viewed" mark per file (remembered in this browser for that
 * file's diff). Loaded again when another target is chosen; only the latest choice is drawn.
 */
function sessionDiffSection(timeline: TimelineHeader, marks: Marks): { section: HTMLElement; load: (into: string | undefined) => Promise<void> } {
  const section = h('section.session-diff', {}, h('h3', {}, 'Files changed'), h('p.sub', {}, 'Loading the session diff…'));
  let asked = 0;
  const load = async (into: string | undefined) => {
    const mine = ++asked;
    delete section.dataset.loaded;
    section.dataset.target = into ?? '';
    section.replaceChildren(h('h3', {}, 'Files changed'), h('p.sub', {}, `Loading the session diff${into ? ` against ${into}` : ''}…`));
    // Another target chosen meanwhile: its diff (or its refusal) is what the page shows, not this one's.
    const loaded = await Promise.all([get<SessionDiff>(`/sessions/${enc(timeline.session)}/diff`, { into }), loadCodeView()]).catch((e: unknown) => {
      if (mine === asked) throw e;
      return null;
    });
    if (mine !== asked || loaded === null) return;
    const [diff, { renderDiff }] = loaded;
    clear(section);
    const against = againstText(diff);
    const rendered = renderDiff(diff.files, 'line-by-line');
    const sectionOf = (path: string) => [...rendered.querySelectorAll<HTMLElement>('section.file')].find((e) => e.dataset.path === path);
    const setViewed = (path: string, on: boolean) => {
      sectionOf(path)?.classList.toggle('viewed', on);
      list.querySelector(`li[data-index="${diff.files.findIndex((f) => f.path === path)}"]`)?.classList.toggle('viewed', on);
    };
    const list = h(
      'ul.file-list',
      {},
      ...diff.files.map((f, i) => {
        const print = fingerprint(f.patch);
        const box = h('input.file-viewed', { type: 'checkbox', 'aria-label': `viewed ${f.path}`, checked: marks.files[f.path] === print });
        box.addEventListener('change', () => {
          if (box.checked) marks.files[f.path] = print;
          else delete marks.files[f.path];
          saveMarks(timeline.session, marks);
          setViewed(f.path, box.checked);
        });
        const jump = h('a.jump', { href: `#/s/${enc(timeline.session)}`, dataset: { path: f.path } }, f.path);
        jump.addEventListener('click', (e) => {
          e.preventDefault();
          sectionOf(f.path)?.scrollIntoView({ block: 'start' });
        });
        return h('li', { dataset: { index: String(i) } }, box, ' ', jump, ' ', f.binary ? h('span.badge.binary', {}, 'binary') : h('span.counts', {}, h('span.plus', {}, `+${f.added}`), ' ', h('span.minus', {}, `-${f.removed}`)));
      }),
    );
    const viewedCount = () => diff.files.filter((f) => marks.files[f.path] === fingerprint(f.patch)).length;
    section.append(h('h3', {}, `Files changed ${against}: ${diff.files.length}`), h('p.sub.viewed-count', {}, `${viewedCount()} of ${diff.files.length} viewed`), h('nav.files-nav', {}, list), rendered);
    list.addEventListener('change', () => (section.querySelector('.viewed-count')!.textContent = `${viewedCount()} of ${diff.files.length} viewed`));
    for (const f of diff.files) if (marks.files[f.path] === fingerprint(f.patch)) setViewed(f.path, true);
    section.dataset.loaded = 'true';
  };
  return { section, load };
}

function actions(timeline: TimelineHeader, reload: () => void): HTMLElement {
  const undo = h('button.undo', { type: 'button', disabled: timeline.undo === null }, 'Undo last edit…');
  undo.addEventListener('click', () =>
    confirmAction(
      'Undo the last edit',
      h('p', {}, `Reverts "${timeline.undo?.summary}" (turn ${timeline.undo?.turn}, ${timeline.undo?.tool}) if its files are unchanged since, as a new commit on ${timeline.branch}.`),
      async () => {
        const r = await post<UndoResult>(`/sessions/${enc(timeline.session)}/undo`, { head: timeline.head });
        return h('p', {}, `Reverted ${r.reverted} file(s): ${r.paths.join(', ')}; committed turn ${r.turn}: `, h('code.result-commit', {}, r.commit));
      },
      reload,
      { session: timeline.session, head: timeline.head },
    ),
  );
  const discard = h('button.discard', { type: 'button', disabled: timeline.pending.length === 0 }, `Discard pending (${timeline.pending.length})…`);
  discard.addEventListener('click', () =>
    confirmAction(
      'Discard pending changes',
      h('p', {}, `Drops the uncommitted changes to ${timeline.pending.join(', ')}. The branch stays at ${short(timeline.head)}.`),
      async () => {
        const r = await post<{ discarded: string[]; commit: string }>(`/sessions/${enc(timeline.session)}/discard`, { head: timeline.head, pending: timeline.pending });
        return h('p', {}, `Discarded ${r.discarded.length} change(s); the session stays at `, h('code.result-commit', {}, r.commit));
      },
      reload,
      { session: timeline.session, head: timeline.head },
    ),
  );
  return h('div.actions', {}, undo, discard);
}

function compareForm(timeline: TimelineHeader): HTMLElement {
  const options = timeline.commits.map((t) => html`<option value="${t.commit}">${t.turn === 0 ? 'start' : `turn ${t.turn}`} ${short(t.commit)}</option>`.value).join('');
  const from = h('select.from', { 'aria-label': 'compare from' });
  const to = h('select.to', { 'aria-label': 'compare to' });
  from.innerHTML = to.innerHTML = options;
  to.selectedIndex = timeline.commits.length - 1;
  const go = h('button', { type: 'button', onclick: () => (location.hash = `#/compare/${from.value}/${to.value}`) }, 'Compare');
  return h('div.compare-form', {}, 'compare ', from, ' with ', to, go);
}

/** The session's head, actions, compare form and merge panel; `preview` runs the merge preview. */
function headNodes(timeline: TimelineHeader, branches: Branches, reload: () => void, marks: Marks, target: { chosen?: string }): { nodes: HTMLElement[]; after: HTMLElement[]; preview: () => void } {
  const diff = sessionDiffSection(timeline, marks);
  // The link to the diff names the branch it is against: the one chosen in the merge panel.
  const toFiles = h('a', { href: `#/s/${enc(timeline.session)}`, onclick: (e: Event) => (e.preventDefault(), diff.section.scrollIntoView({ block: 'start' })) });
  const loadDiff = (into: string | undefined) => {
    toFiles.textContent = into ? `Files changed against ${into} ↓` : 'Files changed ↓';
    diff.load(into).catch((e: unknown) => diff.section.replaceChildren(h('p.refused', {}, String((e as Error).message))));
  };
  const merge = mergePanel(timeline, branches, reload, target.chosen, (into) => {
    target.chosen = into;
    loadDiff(into);
  });
  toFiles.textContent = merge.target() ? `Files changed against ${merge.target()} ↓` : 'Files changed ↓';
  const nodes = [
    h(
      'section.session-head',
      {},
      h('h2', {}, `session ${timeline.session}`, timeline.merged ? h('span.badge.merged', { title: `its head is in ${timeline.merged.into}` }, `merged into ${timeline.merged.into}`) : null),
      h(
        'dl',
        {},
        h('dt', {}, 'branch'),
        h('dd', {}, timeline.branch),
        h('dt', {}, 'base'),
        h('dd', {}, timeline.base.ref ?? '', ' ', h('code', {}, short(timeline.base.commit))),
        h('dt', {}, 'head'),
        h('dd', {}, h('code.head', {}, short(timeline.head))),
        timeline.model ? [h('dt', {}, 'model'), h('dd.model', {}, timeline.model)] : null,
        h('dt', {}, 'turns'),
        h('dd.turn-count', {}, String(timeline.commits.filter((t) => t.turn > 0).length)),
        timeline.parent ? [h('dt', {}, 'resumed from'), h('dd', {}, h('a', { href: `#/s/${enc(timeline.parent.session)}` }, timeline.parent.session), ` turn ${timeline.parent.turn}`)] : null,
        h('dt', {}, 'pending'),
        h('dd', {}, timeline.pending.length ? timeline.pending.join(', ') : 'none'),
      ),
      actions(timeline, reload),
      compareForm(timeline),
    ),
    merge.panel,
    h('p.to-files', {}, toFiles),
  ];
  return {
    nodes,
    // The session's diff comes after the turns: reading the conversation does not start below it.
    after: [diff.section],
    preview: () => {
      merge.preview();
      loadDiff(merge.target() || undefined);
    },
  };
}

type Line = { timeline: TimelineHeader } | { turn: TimelineTurn } | { error: { code: string; message: string } };

export function timelineView(app: HTMLElement, id: string, focus?: number): { stop: () => void; refresh: () => void } {
  let stopped = false;
  // What this browser remembers of the session; the turns seen on the last visit decide what is "new".
  const marks = loadMarks(id);
  const seenAtOpen = marks.lastSeen;
  let focused = false;
  let generation = 0;
  /** What is on the page: the turns by commit, each with the markup it was drawn from. */
  let shown: Array<{ turn: TimelineTurn; markup: string }> = [];
  let headShown: HTMLElement[] = [];
  const byCommit = new Map<string, TimelineTurn>();
  // The merge target the reviewer picked: a live refresh redraws the panel and the diff with it.
  const target: { chosen?: string } = {};
  const section = h('section.timeline');
  // A fold's text is formatted the first time it opens: on the click that opens it (before it is
  // drawn open), or on "toggle" for any other way (captured: it does not bubble).
  const fill = (fold: HTMLDetailsElement | null) => {
    if (!fold || fold.dataset.filled || fold.dataset.call === undefined) return;
    const call = byCommit.get(fold.closest<HTMLElement>('article.turn')?.dataset.commit ?? '')?.toolCalls[Number(fold.dataset.call)];
    if (!call) return;
    fold.dataset.filled = 'true';
    fold.querySelector('pre')!.textContent = readable(fold.dataset.part === 'args' ? call.args : call.output);
  };
  section.addEventListener('click', (e) => {
    const target = e.target as Element;
    if (target.closest('summary')) return fill(target.closest('details'));
    const button = target.closest('button.resume');
    const turn = byCommit.get(button?.closest<HTMLElement>('article.turn')?.dataset.commit ?? '');
    if (button && turn) resumeFrom(turn);
  });
  section.addEventListener('change', (e) => {
    const box = e.target as HTMLInputElement;
    const article = box.closest<HTMLElement>('article.turn');
    if (!box.classList.contains('turn-viewed') || !article) return;
    const commit = article.dataset.commit!;
    marks.turns = marks.turns.filter((c) => c !== commit);
    if (box.checked) marks.turns.push(commit);
    article.classList.toggle('viewed', box.checked);
    saveMarks(id, marks);
  });
  section.addEventListener(
    'toggle',
    (e) => {
      const fold = e.target as HTMLDetailsElement;
      if (fold.open) fill(fold);
    },
    true,
  );

  let abort = new AbortController();
  const load = async (progressive: boolean) => {
    const gen = ++generation;
    // A newer load (or leaving the view) stops this one's stream.
    abort.abort();
    abort = new AbortController();
    const { signal } = abort;
    const current = () => !stopped && gen === generation;
    const branches = get<Branches>('/branches');
    branches.catch(() => undefined); // reported where the head awaits it (unless the stream failed first)
    const reload = () => void load(false).catch(failed);
    let header: TimelineHeader | undefined;
    let head: Promise<{ nodes: HTMLElement[]; after: HTMLElement[]; preview: () => void }> | undefined;
    const turns: Array<{ turn: TimelineTurn; markup: string }> = [];
    let failure: string | undefined;
    // First load: the head is drawn as soon as it is known, the turns a frame's worth at a time.
    let drawn = 0;
    let scheduled = false;
    const drawTurns = () => {
      scheduled = false;
      if (!section.isConnected || drawn === turns.length) return;
      const batch = turns.slice(drawn);
      for (const t of batch) byCommit.set(t.turn.commit, t.turn);
      section.insertAdjacentHTML('beforeend', batch.map((t) => t.markup).join(''));
      drawn = turns.length;
      shown = turns.slice(0, drawn);
    };
    await stream<Line>(`/sessions/${enc(id)}/turns`, (line) => {
      if (!current()) return;
      if ('error' in line) {
        failure = `error ${line.error.code}: ${line.error.message}`;
      } else if ('timeline' in line) {
        header = line.timeline;
        const t = header;
        head = branches.then((b) => headNodes(t, b, reload, marks, target));
        if (progressive) {
          void head.then(({ nodes, after }) => {
            if (!current()) return;
            section.replaceChildren();
            app.replaceChildren(...nodes, section, ...after);
            headShown = [...nodes, ...after];
            drawTurns();
          }, () => undefined); // a failure is reported where the head is awaited below
        }
      } else {
        turns.push({ turn: line.turn, markup: turnHtml(line.turn, header!, turns.length === 0, marks, seenAtOpen) });
        if (progressive && !scheduled && section.isConnected) {
          scheduled = true;
          requestAnimationFrame(drawTurns);
        }
      }
    }, signal);
    if (!current()) return;
    if (!header || !head) throw new Error(failure ?? 'The timeline stream ended without its header.');
    const { nodes, after, preview } = await head;
    if (!current()) return;
    if (progressive) {
      if (!section.isConnected) {
        app.replaceChildren(...nodes, section, ...after);
        headShown = [...nodes, ...after];
      }
      drawTurns();
    } else {
      // The turns stay where they are (moving them would forget their drawn sizes): the head is replaced before them.
      const y = window.scrollY;
      if (section.parentElement !== app) {
        section.replaceChildren();
        shown = [];
        app.replaceChildren(section);
      }
      for (const node of headShown) node.remove();
      for (const node of app.querySelectorAll(':scope > p.refused')) node.remove();
      section.before(...nodes);
      section.after(...after);
      headShown = [...nodes, ...after];
      update(turns);
      window.scrollTo(0, y);
    }
    if (failure) app.append(h('p.refused', {}, failure));
    // The next visit's "new since you last looked" counts from the turns on the page now.
    marks.lastSeen = header.commits.map((c) => c.commit);
    saveMarks(id, marks);
    if (focus !== undefined && !focused) {
      focused = true;
      const article = section.querySelector<HTMLElement>(`article.turn[data-turn="${focus}"]`);
      article?.classList.add('focused');
      article?.scrollIntoView({ block: 'start' });
    }
    app.dataset.loaded = 'timeline';
    // The dry-run merge (the slowest request of the page) waits until the timeline is on screen.
    afterPaint(() => {
      if (current()) preview();
    });
  };

  /** Redraws what changed: turns kept in place when their markup is the same, new ones added at the end. */
  const update = (next: Array<{ turn: TimelineTurn; markup: string }>) => {
    // Turns the page showed that the branch no longer has (it was rewound or rewritten under the
    // page): said, with their commits, instead of vanishing without a word.
    const kept = new Set(next.map((t) => t.turn.commit));
    const lost = shown.filter((t) => !kept.has(t.turn.commit));
    if (lost.length > 0) {
      section.before(
        h(
          'div.rewound',
          { role: 'alert' },
          h('strong', {}, `The session branch was rewound or rewritten: ${lost.length} turn(s) this page showed are no longer on it: `),
          ...lost.map((t) => [h('a', { href: `#/c/${t.turn.commit}` }, `turn ${t.turn.turn} (${short(t.turn.commit)})`), ' ']),
          'They stay readable by their commits while the repository keeps them.',
        ),
      );
    }
    byCommit.clear();
    for (const t of next) byCommit.set(t.turn.commit, t.turn);
    const samePrefix = shown.every((old, i) => i >= next.length || old.turn.commit === next[i]!.turn.commit) && section.children.length === shown.length;
    if (!samePrefix || next.length < shown.length) {
      section.innerHTML = next.map((t) => t.markup).join('');
    } else {
      const articles = [...section.children];
      next.forEach((t, i) => {
        if (i < shown.length) {
          if (shown[i]!.markup !== t.markup) articles[i]!.outerHTML = t.markup;
        } else section.insertAdjacentHTML('beforeend', t.markup);
      });
    }
    shown = next;
  };

  const failed = (e: unknown) => {
    if (stopped || (e as Error).name === 'AbortError') return;
    clear(app);
    app.append(h('p.refused', {}, String((e as Error).message)));
  };
  void load(true).catch(failed);
  return {
    stop: () => {
      stopped = true;
      abort.abort();
    },
    refresh: () => void load(false).catch(failed),
  };
}
