/**
 * Which session an MCP server works in. An MCP client's configuration is a fixed command line,
 * started again on every restart, so `--session ID` opens the session and creates it (from
 * `--base`, default HEAD) only when it does not exist yet: the same configuration resumes the
 * same session, pending changes included. Without an id, every start is a new session.
 */
import { isForgeError } from '../errors';
import type { Session, SessionMode, SessionStore } from '../session';

export interface McpSessionOptions {
  session?: string;
  /** Where a new session starts; ignored (with a note) when the session exists. */
  base?: string;
  /** Given: the session's mode from now on (also for an existing session). Default for a new session: unrestricted. */
  mode?: SessionMode;
}

export interface McpSession {
  session: Session;
  created: boolean;
  /** Things worth telling the person who started the server. */
  notes: string[];
}

export async function openMcpSession(store: SessionStore, options: McpSessionOptions): Promise<McpSession> {
  const create = () => store.create({ ...(options.session !== undefined ? { id: options.session } : {}), ...(options.base !== undefined ? { base: options.base } : {}), ...(options.mode ? { mode: options.mode } : {}) });
  if (options.session === undefined) return { session: await create(), created: true, notes: [] };
  const existing = await openIfExists(store, options.session);
  if (existing === null) {
    try {
      return { session: await create(), created: true, notes: [] };
    } catch (error) {
      // Another process created it in between: use theirs.
      if (!isForgeError(error, 'SESSION_EXISTS')) throw error;
    }
  }
  const session = existing ?? (await store.open(options.session));
  const notes: string[] = session.recoveryNotes();
  if (options.base !== undefined) notes.push(`--base ${options.base} ignored: session ${session.id} exists (it started from ${session.state.base.commit}).`);
  if (options.mode !== undefined && session.state.mode !== options.mode) {
    notes.push(`mode changed from ${session.state.mode} to ${options.mode}.`);
    session.state.mode = options.mode;
    await session.saveState();
  }
  return { session, created: false, notes };
}

async function openIfExists(store: SessionStore, id: string): Promise<Session | null> {
  try {
    return await store.open(id);
  } catch (error) {
    if (isForgeError(error, 'SESSION_NOT_FOUND')) return null;
    throw error;
  }
}
