/**
 * Which of a remote's advertised refs a fetch takes: only session branches
 * (`refs/heads/forge/session/<id>`, nothing else a server advertises), only those asked for,
 * and only names that are valid session ids. A name that is not (a control character, `..`, a
 * nested path, a `.lock` component) is skipped with a warning that quotes it escaped, before
 * anything moves: one bad name neither aborts the fetch halfway nor lands in refs/remotes/.
 * Pure.
 */
import { quoteRemote } from '../errors';
import { SESSION_HEADS, sessionIdProblem } from './remote';

export interface AdvertisedSession {
  id: string;
  oid: string;
}

export interface SessionSelection {
  sessions: AdvertisedSession[];
  /** One line per skipped ref, its name escaped. */
  warnings: string[];
}

export function selectAdvertisedSessions(refs: ReadonlyMap<string, string>, wanted: readonly string[] | undefined): SessionSelection {
  const sessions: AdvertisedSession[] = [];
  const warnings: string[] = [];
  const wantedSet = wanted === undefined ? null : new Set(wanted);
  for (const [ref, oid] of refs) {
    if (!ref.startsWith(SESSION_HEADS)) continue;
    const id = ref.slice(SESSION_HEADS.length);
    if (wantedSet !== null && !wantedSet.has(id)) continue;
    const problem = sessionIdProblem(id);
    if (problem !== null) {
      warnings.push(`skipped the remote's ref "${quoteRemote(ref)}": ${problem}`);
      continue;
    }
    sessions.push({ id, oid });
  }
  return { sessions, warnings };
}
