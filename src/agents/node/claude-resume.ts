/**
 * A resumed Forge session (forge resume --from <commit>) run with `forge agent claude`: Claude
 * Code gets its own conversation as of that commit. Claude Code keeps a conversation as
 * <config dir>/projects/<cwd, every character but [A-Za-z0-9] made '-'>/<session id>.jsonl and
 * resumes one with `--resume <session id>` from the directory it was started in. The parent
 * session's transcript (the one its last hook read) is cut before the first turn committed after
 * that commit, given a new session id and this working directory, and written there.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Session } from '../../session';
import { claudeCodeTranscriptUpTo } from '../claude-code';
import { readCursor, saveCursor } from './hook';

/** Claude Code's project directory for a working directory (CLAUDE_CONFIG_DIR moves ~/.claude). */
export async function claudeProjectDir(cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const real = await realpath(cwd).catch(() => cwd);
  return join(env['CLAUDE_CONFIG_DIR'] || join(env['HOME'] || homedir(), '.claude'), 'projects', real.replace(/[^a-zA-Z0-9]/g, '-'));
}

export interface SeededTranscript {
  /** The id to pass as `--resume`. */
  sessionId: string;
  path: string;
  /** Agent turns handed over. */
  turns: number;
}

/**
 * Writes the transcript a resumed session continues from, once (a session that committed agent
 * turns of its own has its own transcript). Its turns are marked committed in this session's
 * cursor: they are the parent's turns, already in this session's history. Null (with the reason)
 * when there is nothing to hand over.
 */
export async function seedClaudeTranscript(session: Session, dir: string, env: Readonly<Record<string, string | undefined>>): Promise<SeededTranscript | { reason: string } | null> {
  const parent = session.state.parent;
  if (parent === undefined) return null;
  const own = await readCursor(session);
  if (own.committed.length > 0) return null;
  const from = await readCursor(session, parent.session);
  if (from.transcript === undefined) return { reason: `session ${parent.session} has no Claude Code transcript recorded on this machine` };
  const text = await readFile(from.transcript, 'utf8').catch(() => null);
  if (text === null) return { reason: `its transcript ${from.transcript} is gone` };
  const keep = new Set(Object.entries(from.turnOf).flatMap(([key, turn]) => (turn <= parent.turn ? [key] : [])));
  const { entries, keys } = claudeCodeTranscriptUpTo(text, keep);
  if (keys.length === 0) return { reason: `no turn of session ${parent.session} up to turn ${parent.turn} is in its transcript` };
  const sessionId = randomUUID();
  const cwd = await realpath(dir).catch(() => dir);
  const projectDir = await claudeProjectDir(dir, env);
  await mkdir(projectDir, { recursive: true });
  const path = join(projectDir, `${sessionId}.jsonl`);
  const lines = entries.map((e) => JSON.stringify({ ...e, ...('sessionId' in e ? { sessionId } : {}), ...('cwd' in e ? { cwd } : {}) }));
  await writeFile(path, lines.join('\n') + '\n', { mode: 0o600 });
  await saveCursor(session, { committed: keys, turnOf: Object.fromEntries(keys.map((k) => [k, from.turnOf[k]!])), transcript: path });
  return { sessionId, path, turns: keys.length };
}
