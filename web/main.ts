/**
 * The inspector page: a hash router over the views (sessions, a session's timeline, a turn,
 * files at a commit, a comparison), and the live connection that refreshes the list or the
 * open session when a session branch moves.
 */
import { sessionsMoved } from './confirm';
import { clear, h } from './dom';
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
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  clear(crumbs);
  crumbs.append(h('a', { href: '#/' }, 'sessions'));
  const [view, a, ...rest] = parts;
  if (view === 's' && a) {
    crumbs.append(' / ', a);
    const t = timelineView(app, a);
    stop = t.stop;
    refreshOnChange = (changed) => {
      if (changed.some((c) => c.id === a)) t.refresh();
    };
  } else if (view === 'c' && a) {
    crumbs.append(' / turn ', a.slice(0, 10));
    stop = turnView(app, a);
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

window.addEventListener('hashchange', route);
route();
connectLive();
