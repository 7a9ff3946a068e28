/**
 * The session search of `forge log --grep/--author/--since` in the page: every turn of every
 * session (local and fetched) whose conversation, calls or commit message match, streamed as
 * found, each with where it matched and a link to the turn in its session's timeline. The form
 * has the CLI's fields: the text (--grep), the author (--author), since (what --since takes:
 * "2 weeks ago", an ISO date, @<unix seconds>; the server reads it with the CLI's parser) and
 * whether case matters (-i is the default here, as in the header's box). The query lives in the
 * address (#/search?grep=…&author=…&since=…&case=1), so a search can be reloaded and shared.
 */
import type { SessionSearchHit } from '../../src/provenance';
import { stream } from '../api';
import { clear, h, html, short } from '../dom';
import { inZone } from '../time';

const enc = encodeURIComponent;

/** A search as the page's address carries it. */
export interface SearchFields {
  grep: string;
  author: string;
  since: string;
  /** Match case (the CLI without -i); off by default. */
  matchCase: boolean;
}

/** The fields of `#/search?…` (`query` is what follows the `?`). */
export function searchFieldsOf(query: string): SearchFields {
  const q = new URLSearchParams(query);
  return { grep: q.get('grep') ?? '', author: q.get('author') ?? '', since: q.get('since') ?? '', matchCase: q.get('case') === '1' };
}

/** The address of a search: only the fields given. */
export function searchHash(f: SearchFields): string {
  const q = new URLSearchParams();
  if (f.grep) q.set('grep', f.grep);
  if (f.author) q.set('author', f.author);
  if (f.since) q.set('since', f.since);
  if (f.matchCase) q.set('case', '1');
  return `#/search?${q}`;
}

function hitHtml(hit: SessionSearchHit): string {
  const remote = hit.ref.startsWith('refs/remotes/') ? ` (${hit.ref.slice('refs/remotes/'.length, hit.ref.indexOf('/forge/session/'))})` : '';
  return html`<li class="hit" data-session="${hit.session}" data-turn="${hit.turn}"><a class="hit-link" href="#/s/${enc(hit.session)}/turn/${hit.turn}">${hit.session} · turn ${hit.turn}</a>${remote} <code>${short(hit.commit)}</code> <span class="author">${hit.author.name}</span> <span class="time">${inZone(hit.time, '+0000')}</span> <span class="summary">${hit.summary}</span><ul class="matches">${hit.matches.map((m) => html`<li><span class="where">${m.where}</span>: ${m.excerpt}</li>`)}</ul></li>`.value;
}

/** The form with this search's fields; submitting it moves the address to the new search. */
function searchForm(f: SearchFields): HTMLFormElement {
  const field = (name: string, value: string, label: string, placeholder: string) =>
    h('label', {}, `${label} `, h('input', { type: 'text', name, value, placeholder, 'aria-label': label }));
  const matchCase = h('input', { type: 'checkbox', name: 'case', 'aria-label': 'match case', checked: f.matchCase });
  const form = h(
    'form.search-form',
    {},
    field('grep', f.grep, 'text', 'regular expression (conversation, calls, message)'),
    field('author', f.author, 'author', 'regular expression (Name <email>)'),
    field('since', f.since, 'since', '2 weeks ago, 2026-11-20, @1700000000'),
    h('label', {}, matchCase, ' match case'),
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const next = { grep: value('grep'), author: value('author'), since: value('since'), matchCase: matchCase.checked };
    if (next.grep || next.author || next.since) location.hash = searchHash(next);
  });
  return form;
}

/** In words, what is searched: the heading. */
function describe(f: SearchFields): Array<string | HTMLElement> {
  const parts: Array<string | HTMLElement> = ['Sessions'];
  if (f.grep) parts.push(' matching ', h('code.q-grep', {}, f.grep));
  if (f.author) parts.push(' by ', h('code.q-author', {}, f.author));
  if (f.since) parts.push(' since ', h('code.q-since', {}, f.since));
  parts.push(f.matchCase ? ' (case matters)' : ' (any case)');
  return parts;
}

export function searchView(app: HTMLElement, fields: SearchFields): () => void {
  const abort = new AbortController();
  void (async () => {
    clear(app);
    const input = document.getElementById('search-text') as HTMLInputElement | null;
    if (input) input.value = fields.grep;
    const count = h('p.sub.count', {}, 'Searching…');
    const list = h('ul.hits');
    app.append(searchForm(fields), h('h2', {}, ...describe(fields)), count, list);
    if (!fields.grep && !fields.author && !fields.since) {
      count.textContent = 'Give a text, an author or a date to search for.';
      app.dataset.loaded = 'search';
      return;
    }
    const query = new URLSearchParams();
    if (fields.grep) query.set('grep', fields.grep);
    if (fields.author) query.set('author', fields.author);
    if (fields.since) query.set('since', fields.since);
    query.set('ignoreCase', fields.matchCase ? '0' : '1');
    let n = 0;
    try {
      await stream<SessionSearchHit | { error: { code: string; message: string } }>(
        `/search?${query}`,
        (row) => {
          if ('error' in row) return void app.append(h('p.refused', {}, `error ${row.error.code}: ${row.error.message}`));
          n++;
          list.insertAdjacentHTML('beforeend', hitHtml(row));
        },
        abort.signal,
      );
      count.textContent = `${n} matching turn(s)`;
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      // A refusal (a pattern that is not one, a date the CLI would not take) is said with its fix.
      count.textContent = 'The search was refused.';
      app.append(h('p.refused', {}, String((e as Error).message)));
    }
    app.dataset.loaded = 'search';
  })().catch((e) => {
    if ((e as Error).name !== 'AbortError') app.append(h('p.refused', {}, String((e as Error).message)));
  });
  return () => abort.abort();
}
