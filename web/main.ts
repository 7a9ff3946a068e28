/**
 * The inspector page: a hash router over the views (sessions, a session's timeline, a turn,
 * files at a commit, a comparison), and the live connection that refreshes the list or the
 * open session when a session branch moves.
 */
import { sessionsMoved } from './confirm';
import { clear, h } from './dom';
import { blameView } from './views/blame';
import { searchFieldsOf, searchHash, searchView } from './views/search';
import { sessionsView } from './views/sessions';
import { timelineView } from './views/timeline';
import { compareView, treeView } from './views/tree';
import { turnView } from './views/turn';

const app = document.getElementById('app')!;
const crumbs = document.getElementById('crumbs')!;
let stop: () => void = () => undefined;
let refreshOnChange: ((changed: Array<{ id: string }>) => void) | undefined;

function route(): void {
  stop();
  refreshOnChange = undefined;
  delete app.dataset.loaded;
  clear(crumbs);
  crumbs.append(h('a', { href: '#/' }, 'sessions'));
  // #/search?grep=…&author=…&since=…&case=1: the query is read whole (a field may hold a "/").
  const search = /^#\/search\?(.*)$/.exec(location.hash);
  if (search) {
    crumbs.append(' / search');
    stop = searchView(app, searchFieldsOf(search[1]!));
    return;
  }
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [view, a, ...rest] = parts;
  if (view === 's' && a) {
    crumbs.append(' / ', a);
    // #/s/<id>/turn/<n>: the timeline opened at that turn.
    const t = timelineView(app, a, rest[0] === 'turn' && rest[1] !== undefined ? Number(rest[1]) : undefined);
    stop = t.stop;
    refreshOnChange = (changed) => {
      if (changed.some((c) => c.id === a)) t.refresh();
    };
  } else if (view === 'c' && a) {
    crumbs.append(' / turn ', a.slice(0, 10));
    // #/c/<commit>/call/<i>: the turn with the call that wrote a line picked out.
    stop = turnView(app, a, rest[0] === 'call' && rest[1] !== undefined ? Number(rest[1]) : undefined);
  } else if (view === 'blame' && a && rest.length) {
    crumbs.append(' / blame ', rest.join('/'), ' at ', a.slice(0, 10));
    stop = blameView(app, a, rest.join('/'));
  } else if (view === 'search') {
    // #/search/<text>: the text alone, any case (older links).
    crumbs.append(' / search');
    stop = searchView(app, { grep: a ?? '', author: '', since: '', matchCase: false });
  } else if (view === 'tree' && a) {
    crumbs.append(' / files at ', a.slice(0, 10));
    stop = treeView(app, a, rest.length ? rest.join('/') : undefined);
  } else if (view === 'compare' && a && rest[0]) {
    stop = compareView(app, a, rest[0]);
  } else {
    stop = sessionsView(app);
    refreshOnChange = () => route();
  }
}

function connectLive(): void {
  const live = document.getElementById('live')!;
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => live.classList.add('on'));
  events.addEventListener('error', () => live.classList.remove('on'));
  events.addEventListener('sessions', (e) => {
    const { changed } = JSON.parse((e as MessageEvent<string>).data) as { changed: Array<{ id: string; head: string | null }> };
    // An open confirmation about a session that moved says so before the view refreshes behind it.
    sessionsMoved(changed);
    refreshOnChange?.(changed);
  });
}

// The search box in the page's header: its text becomes the search view's address.
document.getElementById('search')?.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = (document.getElementById('search-text') as HTMLInputElement).value.trim();
  if (text) location.hash = searchHash({ grep: text, author: '', since: '', matchCase: false });
});

window.addEventListener('hashchange', route);
route();
connectLive();
