/**
 * Before a session leaves the machine (`forge push`): every turn commit's state is scanned with
 * the redaction rules (on, whatever forge.redact says). A match means a state was committed with
 * redaction off, by an older forge, or by hand: pushing it would publish the secret.
 */
import { ForgeError } from '../errors';
import type { RedactionCount } from './redaction';
import { readStateAt } from './state-io';
import type { SessionStore } from './store';

export interface SecretFinding {
  session: string;
  commit: string;
  turn: number;
  redactions: RedactionCount[];
}

export async function unredactedSecrets(store: SessionStore, ids: readonly string[]): Promise<SecretFinding[]> {
  const out: SecretFinding[] = [];
  for (const id of ids) {
    for (const turn of await store.log(id)) {
      if (turn.outside) continue;
      const state = await readStateAt(store.repo, turn.commit, id).catch(() => null);
      if (state === null) continue;
      const redactions = await store.redaction.findSecrets(state);
      if (redactions.length > 0) out.push({ session: id, commit: turn.commit, turn: turn.turn, redactions });
    }
  }
  return out;
}

export function secretsError(findings: readonly SecretFinding[]): ForgeError {
  const where = findings.slice(0, 5).map((f) => `${f.session} turn ${f.turn} (${f.commit.slice(0, 12)}: ${f.redactions.map((r) => `${r.rule} ×${r.count}`).join(', ')})`);
  return new ForgeError('SECRETS_IN_SESSION', `Not pushed: the committed conversation of ${where.join('; ')}${findings.length > 5 ? ` and ${findings.length - 5} more commit(s)` : ''} holds text that matches a secret rule. Nothing was sent.`, {
    data: { findings },
    hint: 'Check the matches (forge show <commit>); if they are not secrets, push with --force. Otherwise start a new session from before them (forge resume --from <commit>).',
  });
}
