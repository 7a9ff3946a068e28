/**
 * Every command's unknown-session failure, whichever layer raised it, reported with the same
 * message and the same hint naming the close ids ("did you mean s1?").
 */
import { ForgeError, isForgeError } from '../errors';
import { lastOpenedRepository } from './open';
import { closeMatches, unknownSessionHint } from './suggest';

const SESSION_REF_PREFIX = 'refs/heads/forge/session/';

export async function withSessionSuggestions(error: unknown): Promise<unknown> {
  if (!isForgeError(error, 'SESSION_NOT_FOUND')) return error;
  const id = error.data.id;
  const repo = lastOpenedRepository();
  if (typeof id !== 'string' || repo === undefined) return error;
  const ids = (await repo.refs.list(SESSION_REF_PREFIX).catch(() => [])).map(({ ref }) => ref.slice(SESSION_REF_PREFIX.length));
  return new ForgeError('SESSION_NOT_FOUND', `No session ${JSON.stringify(id)} (no branch forge/session/${id}).`, { data: { id, suggestions: closeMatches(id, ids) }, hint: unknownSessionHint(closeMatches(id, ids)) });
}
