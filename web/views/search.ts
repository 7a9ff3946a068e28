/**
 * The session search of `forge log --grep` in the page: every turn of every session (local and
 * fetched) whose conversation, calls or commit message match, streamed as found, each with
 * where it matched and a link to the turn in its session's timeline.
 */
import type { SessionSearchHit } from '../../src/provenance';
import { stream } from '../api';
import { clear, h, html, short } from '../dom';
import { inZone } from '../time';

const enc = encodeURIComponent;

function hitHtml(hit: SessionSearchHit): string {
  const remote = hit.ref.startsWith('refs/remotes/') ? ` (${hit.ref.slice('refs/remotes/'.length, hit.ref.indexOf('/forge/session/'))})` : '';
  return html`<li class="hit" data-session="${hit.session}" data-turn="${hit.turn}"><a class="hit-link" href="#/s/${enc(hit.session)}/turn/${hit.turn}">${hit.session} · turn ${hit.turn}</a>${remote} <code>${short(hit.commit)}</code> <span class="author">${hit.author.name}</span> <span class="time">${inZone(hit.time, '+0000')}</span> <span class="summary">${hit.summary}</span><ul class="matches">${hit.matches.map((m) => html`<li><span class="where">${m.where}</span>: ${m.excerpt}</li>`)}</ul></li>`.value;
}

export function searchView(app: HTMLElement, text: string): () => void {
  const abort = new AbortController();
  void (async () => {
    clear(app);
    const input = document.getElementById('search-text') as HTMLInputElement | null;
    if (input) input.value = text;
    const count = h('p.sub.count', {}, 'Searching…');
    const list = h('ul.hits');
    app.append(h('h2', {}, 'Sessions matching ', h('code', {}, text)), count, list);
    let n = 0;
    await stream<SessionSearchHit | { error: { code: string; message: string } }>(
      `/search?${new URLSearchParams({ grep: text, ignoreCase: '1' })}`,
      (row) => {
        if ('error' in row) return void app.append(h('p.refused', {}, `error ${row.error.code}: ${row.error.message}`));
        n++;
        list.insertAdjacentHTML('beforeend', hitHtml(row));
      },
      abort.signal,
    );
    count.textContent = `${n} matching turn(s)`;
    app.dataset.loaded = 'search';
  })().catch((e) => {
    if ((e as Error).name !== 'AbortError') app.append(h('p.refused', {}, String((e as Error).message)));
  });
  return () => abort.abort();
}
