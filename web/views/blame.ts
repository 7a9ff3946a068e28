/**
 * A file at any commit with the provenance of every line (`forge blame`'s): the commit that last
 * changed it, its author, and for a line a session wrote, the session and turn. Choosing such a
 * line opens the conversation turn that wrote it, the call that wrote it picked out. Drawn as one
 * piece of markup (a 5,000-line file is one parse), every value escaped as text.
 */
import type { BlameView } from '../../src/inspect/review';
import { get } from '../api';
import { clear, h, html, short } from '../dom';
import { inZone } from '../time';

const enc = encodeURIComponent;

/** Where choosing a line goes: the turn that wrote it (with its call), or nothing for a person's commit. */
export function lineTarget(view: BlameView, index: number): string | null {
  const line = view.lines[index];
  const commit = line ? view.commits[line.commit] : undefined;
  if (!line || !commit?.session) return null;
  return `#/c/${line.commit}${line.call ? `/call/${line.call.index}` : ''}`;
}

export function blameView(app: HTMLElement, revision: string, path: string): () => void {
  void (async () => {
    const view = await get<BlameView>(`/commits/${enc(revision)}/blame`, { path });
    clear(app);
    let markup = '';
    let previous = '';
    view.lines.forEach((line, i) => {
      const c = view.commits[line.commit]!;
      // The commit's details on the first line of each run of lines it wrote.
      const first = line.commit !== previous;
      previous = line.commit;
      const who = c.session ? html`<span class="by-session">${c.session.id} · turn ${c.session.turn}${line.call ? html` · ${line.call.tool}` : ''}</span>` : html`<span class="by-person">${c.author.name}</span>`;
      const gutter = first ? html`<code>${short(line.commit)}</code> ${who} <span class="when">${inZone(c.author.time, c.author.zone)}</span>` : '';
      markup += html`<div class="bl${c.session ? ' session' : ''}${first ? ' first' : ''}" data-line="${i + 1}" data-commit="${line.commit}" title="${c.summary} — ${c.author.name} <${c.author.email}>"><span class="bl-who">${gutter}</span><span class="bl-no">${i + 1}</span><span class="bl-text">${line.text.replace(/\r?\n$/, '')}</span></div>`.value;
    });
    const lines = h('div.blame-lines');
    lines.innerHTML = markup;
    lines.addEventListener('click', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('div.bl');
      if (!row) return;
      const target = lineTarget(view, Number(row.dataset.line) - 1);
      if (target) location.hash = target;
    });
    app.append(
      h(
        'section.blame-head',
        {},
        h('h2', {}, 'Blame ', h('span.path', {}, view.path), ' at ', h('code', {}, short(view.commit))),
        h('p.sub', {}, 'Each line with the commit that last changed it. Choose a line a session wrote to open the conversation turn that wrote it.'),
        h('a.button', { href: `#/tree/${view.commit}/${view.path.split('/').map(enc).join('/')}` }, 'file view'),
      ),
      lines,
    );
    app.dataset.loaded = 'blame';
  })().catch((e) => app.append(h('p.refused', {}, String((e as Error).message))));
  return () => undefined;
}
