/**
 * The end of an agent turn (Claude Code's Stop hook, Codex's notify program, and once more when
 * the agent exits): bring the working directory's changes into the pending layer, convert the
 * turns of the agent's transcript not committed yet, and commit one Forge turn per agent turn.
 * Which turns were committed is kept in <commondir>/forge/agents/<session>.json (their keys), so
 * a hook that fired twice, or not at all, neither duplicates nor loses a turn.
 */
import { appendFile, mkdir, readFile, readdir, rename, rmdir, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ForgeError } from '../../errors';
import { validateSessionId, type Session, type TurnCommit } from '../../session';
import type { ToolsConfig } from '../../tools';
import { claudeCodeTurns } from '../claude-code';
import { codexTurns } from '../codex';
import { recordAgentTurn, turnsToCommit } from '../record-turn';
import { endLastTurnWith, endsWithAnswer, type AgentName, type ConvertedTurn } from '../transcript';
import { copyWorkdir, markSynced } from './workdir';

const KEPT_KEYS = 2000;

function cursorFile(session: Session, id = session.id): string {
  return join(session.repo.commonDir, 'forge', 'agents', `${id}.json`);
}

export interface Cursor {
  committed: string[];
  /** The Forge turn each committed agent turn became (by key): where a resumed session cuts the transcript. */
  turnOf: Record<string, number>;
  /** The transcript each committed turn was read from (by key): a resumed session's starting point. */
  transcriptOf: Record<string, string>;
  /** The transcript the last hook read: where the end-of-run catch-up looks. */
  transcript?: string;
}

/** The cursor of `session`, or of another session of its repository (`id`: a resumed session's parent). */
export async function readCursor(session: Session, id = session.id): Promise<Cursor> {
  try {
    const parsed = JSON.parse(await readFile(cursorFile(session, id), 'utf8')) as { committed?: unknown; transcript?: unknown; turnOf?: unknown; transcriptOf?: unknown };
    const turnOf: Record<string, number> = {};
    if (parsed.turnOf !== null && typeof parsed.turnOf === 'object') for (const [k, v] of Object.entries(parsed.turnOf)) if (typeof v === 'number') turnOf[k] = v;
    const transcriptOf: Record<string, string> = {};
    if (parsed.transcriptOf !== null && typeof parsed.transcriptOf === 'object') for (const [k, v] of Object.entries(parsed.transcriptOf)) if (typeof v === 'string') transcriptOf[k] = v;
    return {
      committed: Array.isArray(parsed.committed) ? parsed.committed.filter((k): k is string => typeof k === 'string') : [],
      turnOf,
      transcriptOf,
      ...(typeof parsed.transcript === 'string' ? { transcript: parsed.transcript } : {}),
    };
  } catch {
    return { committed: [], turnOf: {}, transcriptOf: {} };
  }
}

export async function saveCursor(session: Session, cursor: Cursor): Promise<void> {
  const file = cursorFile(session);
  await mkdir(dirname(file), { recursive: true });
  const committed = cursor.committed.slice(-KEPT_KEYS);
  const turnOf = Object.fromEntries(committed.flatMap((k) => (cursor.turnOf[k] !== undefined ? [[k, cursor.turnOf[k]]] : [])));
  const transcriptOf = Object.fromEntries(committed.flatMap((k) => (cursor.transcriptOf[k] !== undefined ? [[k, cursor.transcriptOf[k]]] : [])));
  await writeFile(`${file}.tmp`, JSON.stringify({ ...cursor, committed, turnOf, transcriptOf }) + '\n');
  await rename(`${file}.tmp`, file);
}

/** One run of a hook: what forge agent's report says about the hooks of its run. */
export interface HookLogEntry {
  at: string;
  kind: string;
  ok: boolean;
  /** The Forge turns it committed. */
  turns: number[];
  /** A notification that is not a turn's end (ignored). */
  event?: string;
  error?: { code: string; message: string };
}

function hookLogFile(commonDir: string, sessionId: string): string {
  return join(commonDir, 'forge', 'agents', `${validateSessionId(sessionId)}.hooks.jsonl`);
}

export async function appendHookLog(commonDir: string, sessionId: string, entry: HookLogEntry): Promise<void> {
  const file = hookLogFile(commonDir, sessionId);
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, JSON.stringify(entry) + '\n');
}

/** The hook runs logged since `since` (ms). */
export async function readHookLog(session: Session, since: number): Promise<HookLogEntry[]> {
  const text = await readFile(hookLogFile(session.repo.commonDir, session.id), 'utf8').catch(() => '');
  return text
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as HookLogEntry];
      } catch {
        return [];
      }
    })
    .filter((e) => Date.parse(e.at) >= since);
}

export async function readTranscript(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new ForgeError('AGENT_TRANSCRIPT_NOT_FOUND', `Cannot read the agent's transcript ${path}: ${(error as Error).message}. The turn's file changes are kept pending.`, { data: { path } });
  }
}

export function convertTranscript(agent: AgentName, text: string): ConvertedTurn[] {
  return agent === 'claude-code' ? claudeCodeTurns(text) : codexTurns(text);
}

export interface HookResult {
  commits: TurnCommit[];
  skipped: Array<{ path: string; code: string; message: string }>;
}

/** Syncs the directory, then commits each new turn of the transcript (the files go with the first). */
export interface CommitAgentTurnsOptions {
  agent: AgentName;
  transcript: string;
  dir: string;
  config: ToolsConfig;
  /** false: the directory is a mount, whose writes are in the pending layer already. */
  sync?: boolean;
  /** Claude Code's Stop payload `last_assistant_message`: the answer, which the transcript may not hold yet. */
  lastAssistantMessage?: string;
}

export async function commitAgentTurns(session: Session, options: CommitAgentTurnsOptions): Promise<HookResult> {
  return withAgentLock(session, () => commitUnlocked(session, options));
}

/**
 * One hook at a time per session, from reading the cursor to saving it: the session's lease is
 * given up at each commit, and a second hook reading the cursor in between would commit the
 * same turn again. A lock older than STALE_LOCK_MS was left by a killed hook.
 */
const STALE_LOCK_MS = 5 * 60_000;

async function withAgentLock<T>(session: Session, work: () => Promise<T>): Promise<T> {
  const lock = `${cursorFile(session)}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const age = await stat(lock).then((st) => Date.now() - st.mtimeMs, () => 0);
      if (age > STALE_LOCK_MS) await rmdir(lock).catch(() => {});
      else if (Date.now() - started > 60_000) throw new ForgeError('SESSION_BUSY', `Another forge agent hook of session ${session.id} has been running for over a minute (${lock}).`, { hint: `If no forge process is running, remove ${lock}.` });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    await rmdir(lock).catch(() => {});
  }
}

async function commitUnlocked(session: Session, options: CommitAgentTurnsOptions): Promise<HookResult> {
  const copy = options.sync !== false;
  const { skipped } = copy ? await copyWorkdir(options.dir, options.config).sync(session) : { skipped: [] };
  const turns = await settledTurns(options.agent, options.transcript, options.lastAssistantMessage);
  const cursor = { ...(await readCursor(session)), transcript: options.transcript };
  const commits: TurnCommit[] = [];
  const notes = skipped.map((s) => `Not brought back from the working directory: ${s.path} (${s.code})`);
  for (const turn of turnsToCommit(turns, new Set(cursor.committed))) {
    const commit = await recordAgentTurn(session, turn, commits.length === 0 ? notes : []);
    commits.push(commit);
    cursor.committed.push(turn.key);
    cursor.turnOf[turn.key] = commit.turn;
    cursor.transcriptOf[turn.key] = options.transcript;
    await saveCursor(session, cursor);
  }
  if (commits.length === 0) await saveCursor(session, cursor);
  if (copy) await markSynced(session, options.dir);
  // Changes with no new turn to carry them (the agent was interrupted) stay pending.
  return { commits, skipped };
}

/** How long a hook waits for the agent to finish writing the turn it was told had ended. */
const SETTLE_MS = 3_000;
const SETTLE_WITH_ANSWER_MS = 1_000;


/**
 * The transcript's turns once its last turn is whole: an interactive Claude Code runs the Stop
 * hook before the answer's entry reaches the file (seen with 2.1.197 under a terminal), and a turn
 * committed then would lose its answer for good (its key is marked committed). An interrupted
 * turn never becomes whole: after SETTLE_MS it is committed as it stands.
 */
async function settledTurns(agent: AgentName, path: string, answer: string | undefined): Promise<ConvertedTurn[]> {
  // With the answer in the hook's payload a short wait is enough: the file may only get it after the hook.
  const until = Date.now() + (answer ? SETTLE_WITH_ANSWER_MS : SETTLE_MS);
  for (;;) {
    const turns = convertTranscript(agent, await readTranscript(path));
    const last = turns.at(-1);
    if ((last !== undefined && endsWithAnswer(last)) || Date.now() >= until) return endLastTurnWith(turns, answer);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Codex's rollout file of a thread: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl. */
export async function findCodexRollout(threadId: string | undefined, env: Readonly<Record<string, string | undefined>>, since = 0): Promise<string | null> {
  const root = join(env['CODEX_HOME'] || join(homedir(), '.codex'), 'sessions');
  let best: { path: string; mtime: number } | null = null;
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      if (depth < 3) {
        await walk(path, depth + 1);
        continue;
      }
      if (!name.startsWith('rollout-') || !name.endsWith('.jsonl')) continue;
      if (threadId !== undefined && !name.endsWith(`${threadId}.jsonl`)) continue;
      const mtime = (await stat(path)).mtimeMs;
      if (mtime >= since && (best === null || mtime > best.mtime)) best = { path, mtime };
    }
  };
  await walk(root, 0);
  return (best as { path: string } | null)?.path ?? null;
}

/**
 * Runs `work` again while another process holds the session: Codex runs its notify program
 * without waiting for it, so the hook of the last turn and the end-of-run catch-up may overlap.
 * Each waits for the other (a bounded wait: a live holder that never lets go is reported).
 */
export async function whenSessionFree<T>(work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ForgeError && error.code === 'SESSION_BUSY') || Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
