/**
 * A resumed Forge session (forge resume --from <commit>) run with `forge agent`: the agent gets
 * its own conversation as of that commit. The transcript the parent session's last kept turn was
 * read from is cut before the first turn committed after that commit, given a new id and this
 * working directory, and written where the agent looks for it:
 * - Claude Code: <config dir>/projects/<cwd, every character but [A-Za-z0-9] made '-'>/<id>.jsonl,
 *   resumed with `--resume <id>` from the directory it was started in;
 * - Codex: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl (the id in its
 *   session_meta), resumed with `codex [exec] resume <thread id>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Session } from '../../session';
import { claudeCodeTranscriptUpTo } from '../claude-code';
import { codexRolloutUpTo, codexTurns } from '../codex';
import type { AgentName } from '../transcript';
import { readCursor, saveCursor } from './hook';

type Env = Readonly<Record<string, string | undefined>>;

/** Claude Code's project directory for a working directory (CLAUDE_CONFIG_DIR moves ~/.claude). */
export async function claudeProjectDir(cwd: string, env: Env): Promise<string> {
  const real = await realpath(cwd).catch(() => cwd);
  return join(env['CLAUDE_CONFIG_DIR'] || join(env['HOME'] || homedir(), '.claude'), 'projects', real.replace(/[^a-zA-Z0-9]/g, '-'));
}

export interface SeededTranscript {
  /** The id to resume. */
  sessionId: string;
  path: string;
  /** Agent turns handed over. */
  turns: number;
}

/** A UUID v7 (time-ordered), the shape of Codex's thread ids. */
function uuidV7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Writes the transcript a resumed session continues from, once (a session that committed agent
 * turns of its own has its own transcript). Its turns are marked committed in this session's
 * cursor: they are the parent's turns, already in this session's history. Null when the session
 * was not resumed; `{ reason }` when there is nothing to hand over.
 */
export async function seedTranscript(agent: AgentName, session: Session, dir: string, env: Env): Promise<SeededTranscript | { reason: string } | null> {
  const parent = session.state.parent;
  if (parent === undefined) return null;
  if ((await readCursor(session)).committed.length > 0) return null;
  const from = await readCursor(session, parent.session);
  const keep = new Set(Object.entries(from.turnOf).flatMap(([key, turn]) => (turn <= parent.turn ? [key] : [])));
  // The transcript of the last turn kept holds that turn and the conversation before it.
  const lastKept = [...keep].sort((a, b) => from.turnOf[b]! - from.turnOf[a]!)[0];
  const source = lastKept !== undefined ? (from.transcriptOf[lastKept] ?? from.transcript) : undefined;
  if (source === undefined) return { reason: `session ${parent.session} has no ${agent} turn up to turn ${parent.turn} recorded on this machine` };
  const text = await readFile(source, 'utf8').catch(() => null);
  if (text === null) return { reason: `its transcript ${source} is gone` };
  const cut = agent === 'claude-code' ? claudeCodeTranscriptUpTo(text, keep) : codexRolloutUpTo(text, keep);
  if (cut.keys.length === 0) return { reason: `no turn of session ${parent.session} up to turn ${parent.turn} is in ${source}` };
  const cwd = await realpath(dir).catch(() => dir);
  const written = agent === 'claude-code' ? await writeClaude(cut.entries, cwd, env) : await writeCodex(cut.entries, cwd, env);
  // The keys of the turns as the agent will write them again (Codex's name the thread).
  const keys = agent === 'claude-code' ? cut.keys : codexTurns(written.text).map((t) => t.key);
  const turnOf = Object.fromEntries(keys.map((k, i) => [k, from.turnOf[cut.keys[i]!] ?? parent.turn]));
  await saveCursor(session, { committed: keys, turnOf, transcriptOf: Object.fromEntries(keys.map((k) => [k, written.path])), transcript: written.path });
  return { sessionId: written.id, path: written.path, turns: keys.length };
}

async function writeClaude(entries: Array<Record<string, unknown>>, cwd: string, env: Env): Promise<{ id: string; path: string; text: string }> {
  const id = randomUUID();
  const projectDir = await claudeProjectDir(cwd, env);
  await mkdir(projectDir, { recursive: true });
  const path = join(projectDir, `${id}.jsonl`);
  const text = entries.map((e) => JSON.stringify({ ...e, ...('sessionId' in e ? { sessionId: id } : {}), ...('cwd' in e ? { cwd } : {}) })).join('\n') + '\n';
  await writeFile(path, text, { mode: 0o600 });
  return { id, path, text };
}

async function writeCodex(entries: Array<Record<string, unknown>>, cwd: string, env: Env): Promise<{ id: string; path: string; text: string }> {
  const now = new Date();
  const id = uuidV7(now.getTime());
  const old = entries.map((e) => e['payload']).find((p): p is Record<string, unknown> => typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>)['id'] === 'string');
  const oldId = old?.['id'] as string | undefined;
  const text =
    entries
      .map((e) => {
        const payload = e['payload'] as Record<string, unknown> | undefined;
        const moved = payload && (e['type'] === 'session_meta' || e['type'] === 'turn_context') && 'cwd' in payload ? { ...e, payload: { ...payload, cwd } } : e;
        const line = JSON.stringify(moved);
        return oldId !== undefined ? line.split(oldId).join(id) : line;
      })
      .join('\n') + '\n';
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = join(env['CODEX_HOME'] || join(env['HOME'] || homedir(), '.codex'), 'sessions', String(now.getUTCFullYear()), pad(now.getUTCMonth() + 1), pad(now.getUTCDate()));
  await mkdir(day, { recursive: true });
  const stamp = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}T${pad(now.getUTCHours())}-${pad(now.getUTCMinutes())}-${pad(now.getUTCSeconds())}`;
  const path = join(day, `rollout-${stamp}-${id}.jsonl`);
  await writeFile(path, text, { mode: 0o600 });
  return { id, path, text };
}
