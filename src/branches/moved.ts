/**
 * The refusal of an action tied to what a person saw: a branch (or a session's head) that moved
 * since then. The message names the new head, so the reviewer knows there is something new to
 * look at before confirming again.
 */
import { ForgeError } from '../errors';

export function movedError(what: string, ref: string, shown: string, now: string | null): ForgeError {
  const where = now === null ? 'it no longer exists' : `its head is now ${now}`;
  return new ForgeError('REF_CAS_FAILED', `${what} moved since it was shown: ${where} (it was ${shown} when shown). Nothing was changed; review what is new, then confirm again.`, {
    data: { ref, shown, now },
    hint: 'Reload the view to see the new commits.',
  });
}
