/**
 * Time travel for the page: a turn as of its commit (the conversation then, the turn's diff), a
 * commit's file tree, one file of a commit, and the diff between two commits of a session.
 * `SessionStore.at` and the commit view do the reading, as for `forge show` and `forge cat --rev`.
 */
import { diffTrees, type Repository } from '../git';
import { SESSION_DIR, SessionStore, type Message, type ToolCallRecord } from '../session';
import { CommitVfs } from '../vfs';
import { interleave, type ConversationItem } from './conversation';
import { shownPatches, type ShownPatch } from './patches';
import { modelName, personOf, type Person } from './signature';

export interface TurnView {
  session: string;
  commit: string;
  turn: number;
  /** The conversation as of this commit (every earlier turn included). */
  messages: Message[];
  /** The tool calls of this turn. */
  toolCalls: ToolCallRecord[];
  /** This turn's messages and calls in conversation order. */
  conversation: ConversationItem[];
  author: Person;
  model: string | null;
  summary: string;
  files: ShownPatch[];
}

export async function turnView(repo: Repository, revision: string): Promise<TurnView> {
  const at = await new SessionStore(repo).at(revision);
  const commit = await repo.readCommit(at.commit);
  const toolCalls = at.state.toolCalls.filter((c) => c.turn === at.state.turn);
  const files = await shownPatches(repo, at.changes);
  return {
    session: at.id,
    commit: at.commit,
    turn: at.state.turn,
    messages: at.state.messages,
    toolCalls,
    conversation: interleave(
      at.state.messages.filter((m) => m.turn === at.state.turn),
      toolCalls,
      new Map(files.map((f) => [f.path, f])),
    ),
    author: personOf(commit.author),
    model: modelName(at.state.model),
    summary: commit.message.split('\n')[0] ?? '',
    files,
  };
}

export interface TreeView {
  commit: string;
  files: Array<{ path: string; mode: string; oid: string }>;
}

export async function treeView(repo: Repository, revision: string): Promise<TreeView> {
  const commit = await repo.resolveCommit(revision);
  const view = await CommitVfs.open(repo, commit);
  const files = (await view.walk('')).map((e) => ({ path: e.path, mode: e.mode, oid: e.oid }));
  return { commit, files };
}

/** Above this size a file's content is summarized, not sent. */
export const LARGE_FILE_BYTES = 4 * 1024 * 1024;

export interface FileView {
  commit: string;
  path: string;
  size: number;
  mode: string;
  oid: string;
  binary: boolean;
  large: boolean;
  crlf: boolean;
  /** The content when it is text and not too large. */
  text?: string;
}

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * One file of a commit. Its size is read from the object's header first: a file over
 * LARGE_FILE_BYTES is described, never read (a 50 MB file would otherwise be inflated whole,
 * kept in the blob cache and block the event loop for every other request).
 */
export async function fileView(repo: Repository, revision: string, path: string): Promise<FileView> {
  const commit = await repo.resolveCommit(revision);
  const view = await CommitVfs.open(repo, commit);
  const entry = await view.entry(path);
  if (entry === null || entry.mode === '040000' || entry.mode === '160000') await view.readFile(path); // PATH_NOT_FOUND, PATH_IS_DIRECTORY, ... as the view says them
  const size = await repo.blobSize(entry!.oid);
  const out: FileView = { commit, path, size, mode: entry!.mode, oid: entry!.oid, binary: false, large: size > LARGE_FILE_BYTES, crlf: false };
  if (out.large) return out;
  const bytes = await view.readFile(path);
  let text: string | undefined;
  try {
    text = bytes.includes(0) ? undefined : strict.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text === undefined) out.binary = true;
  else {
    out.text = text;
    out.crlf = text.includes('\r\n');
  }
  return out;
}

export interface CompareView {
  from: string;
  to: string;
  files: ShownPatch[];
}

/** Two commits' code compared (the sessions' conversation files left out, as `forge diff` does). */
export async function compareView(repo: Repository, from: string, to: string): Promise<CompareView> {
  const [a, b] = await Promise.all([repo.resolveCommit(from), repo.resolveCommit(to)]);
  const [treeA, treeB] = await Promise.all([a, b].map(async (oid) => (await repo.readCommit(oid)).tree));
  const changes = (await diffTrees(repo, treeA!, treeB!)).filter((c) => !c.path.startsWith(`${SESSION_DIR}/`));
  return { from: a, to: b, files: await shownPatches(repo, changes) };
}
