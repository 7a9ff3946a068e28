/**
 * forge agent claude|codex [--session ID | --base REF] [--copy|--mount] [-- <agent arguments>]
 * forge agent hook claude-stop|codex-notify --session ID --dir DIR
 *
 * Runs the agent CLI the user already has in a working directory that is the session's live
 * view, with hooks configured for this run only (a settings file on Claude Code's command line,
 * `-c notify=…` for Codex; the user's own configuration is never written). At the end of each
 * agent turn the hook commits one Forge turn: the files changed plus the turn's transcript,
 * converted and redacted. When the agent exits, turns a hook missed are committed too.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Command } from 'commander';
import type { AgentName } from '../../agents';
import type { HookLogEntry } from '../../agents/node/hook';
import { ForgeError, toForgeError } from '../../errors';
import type { Session, TurnCommit } from '../../session';
import { parseToolsConfig, type ToolsConfig } from '../../tools';
import { common } from '../common';
import { emit, reportError, ReportedFailure, shortOid, type CommonOptions } from '../io';
import { openStore, repoDir } from '../open';
import { loadSettings } from '../settings';

/** forge agent: the agent CLI exited non-zero or was killed (its finished turns are committed). */
export const EXIT_AGENT_FAILED = 8;
/** `forge agent hook claude-stop` on any failure: a non-blocking error to Claude Code (2 would block the stop). */
const CLAUDE_HOOK_FAILED = 1;

interface AgentOptions extends CommonOptions {
  session?: string;
  base?: string;
  copy?: boolean;
  mount?: boolean;
  dir?: string;
}

const AGENTS: Record<string, { name: AgentName; bin: string; env: string }> = {
  claude: { name: 'claude-code', bin: 'claude', env: 'FORGE_CLAUDE_BIN' },
  codex: { name: 'codex', bin: 'codex', env: 'FORGE_CODEX_BIN' },
};

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\/.,:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** This forge, as a command line the hooks can run. */
function forgeCommand(): string[] {
  return [process.execPath, process.argv[1]!];
}

function toolsConfig(workdir: string | null): ToolsConfig {
  const { denied_paths } = loadSettings(workdir, {});
  return parseToolsConfig(denied_paths !== undefined ? { denied_paths } : {});
}

function turnLines(commits: readonly TurnCommit[], session: Session): string[] {
  return commits.map((c) => `turn ${c.turn} committed ${shortOid(c.commit)} on ${session.branch} (${c.changes.length} file(s) changed)${c.redactions.length > 0 ? `; redacted ${c.redactions.map((r) => `${r.rule} ×${r.count}`).join(', ')}` : ''}`);
}

async function runAgent(which: string, agentArgs: string[], options: AgentOptions): Promise<void> {
  const agent = AGENTS[which];
  if (!agent) throw new ForgeError('INVALID_ARGUMENT', `Unknown agent "${which}": forge agent runs claude or codex.`);
  if (options.session !== undefined && options.base !== undefined) throw new ForgeError('INVALID_ARGUMENT', '--session continues a session and --base starts one: give one of them.');
  if (options.copy && options.mount) throw new ForgeError('INVALID_ARGUMENT', '--copy and --mount exclude each other.');
  const { openWorkdir, copyWorkdir, workdirFor } = await import('../../agents/node/workdir');
  const { commitAgentTurns, findCodexRollout, readCursor, readHookLog, whenSessionFree } = await import('../../agents/node/hook');
  const { SerialQueue } = await import('../../session/serial-queue');
  const store = await openStore(options);
  const config = toolsConfig(store.repo.workdir);
  let session = options.session !== undefined ? await store.open(options.session) : await store.create({ ...(options.base !== undefined ? { base: options.base } : {}), model: { provider: agent.name } });
  const dir = options.dir ?? workdirFor(session.repo.commonDir, session.id);
  // The mount's writes and this process's commits take turns on the session's journal.
  const queue = new SerialQueue();
  const { workdir, why } = await pickWorkdir(session, dir, options, config, queue, openWorkdir);
  const mounted = workdir.mode === 'mount';
  const held = session;
  // Copy: the hooks commit in their own processes. Mount: this process holds the session and commits for them.
  if (!mounted) await session.close();
  const withSession = <T>(work: (s: Session) => Promise<T>): Promise<T> =>
    mounted
      ? queue.run(() => work(held))
      : whenSessionFree(async () => {
          const opened = await store.open(held.id);
          try {
            return await work(opened);
          } finally {
            await opened.close();
          }
        });
  const scratch = await mkdtemp(join(tmpdir(), 'forge-agent-run-'));
  const socket = join(scratch, 'hook.sock');
  const hook = [...forgeCommand(), 'agent', 'hook', which === 'claude' ? 'claude-stop' : 'codex-notify', '--repo', repoDir(options), '--session', session.id, '--dir', workdir.dir, ...(mounted ? ['--socket', socket] : [])];
  const started = Date.now();
  let server: import('node:net').Server | null = null;
  try {
    if (mounted) {
      const { serveHooks } = await import('../../agents/node/hook-socket');
      server = await serveHooks(socket, (request) =>
        withSession(async (s) => {
          const result = await commitAgentTurns(s, { ...request, dir: workdir.dir, config, sync: false });
          return { turns: result.commits.map((c) => c.turn), lines: turnLines(result.commits, s) };
        }),
      );
    }
    let args: string[];
    agentArgs = await withSession((s) => handOverTranscript(which, s, workdir.dir, agentArgs));
    if (which === 'claude') {
      const settingsFile = join(scratch, 'settings.json');
      await writeFile(settingsFile, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: hook.map(shellQuote).join(' ') }] }] } }, null, 2));
      args = ['--settings', settingsFile, ...agentArgs];
    } else {
      args = ['-c', `notify=${JSON.stringify(hook)}`, ...agentArgs];
    }
    process.stderr.write(`forge: session ${session.id} (${session.branch}); ${agent.bin} works in ${workdir.dir} (${workdir.mode}${why ? `: ${why}` : ''})\n`);
    const code = await launch(process.env[agent.env] || agent.bin, args, workdir.dir);
    // Codex runs its notify program without waiting for it: the last turn's notification may
    // still be starting. It gets a moment to commit that turn itself before the catch-up does.
    if (which === 'codex' && code.code === 0) await waitForHook(() => readHookLog(held, started), NOTIFY_GRACE_MS);
    // Catch up: turns whose hook did not run (or failed), and changes made after the last one.
    const { caught, pending } = await withSession(async (s) => {
      session = s;
      const cursor = await readCursor(s);
      // Codex writes a rollout per exec (a new thread): this run's is the newest since it started.
      const transcript = which === 'claude' ? cursor.transcript : ((await findCodexRollout(undefined, process.env, started)) ?? cursor.transcript);
      const caught = transcript !== undefined ? (await commitAgentTurns(s, { agent: agent.name, transcript, dir: workdir.dir, config, sync: !mounted })).commits : [];
      if (transcript === undefined && !mounted) await copyWorkdir(workdir.dir, config).sync(s);
      return { caught, pending: await s.vfs.diff() };
    });
    const turns = await store.log(session.id);
    const hooks = (await readHookLog(session, started)).filter((h) => h.event === undefined);
    const failed = hooks.filter((h) => !h.ok);
    emit(options, { session: session.id, branch: session.branch, dir: workdir.dir, mode: workdir.mode, exitCode: code.code, ...(code.signal !== null ? { signal: code.signal } : {}), turns: turns.length - 1, hooks: hooks.map((h) => ({ kind: h.kind, ok: h.ok, turns: h.turns, ...(h.error ? { error: h.error } : {}) })), caughtUp: caught.map((c) => ({ turn: c.turn, commit: c.commit, redactions: c.redactions })), pending: pending.map((c) => c.path) }, () =>
      [
        ...failed.map((h) => `hook ${h.kind} failed: ${h.error?.code}: ${h.error?.message}`),
        ...(caught.length > 0 ? [`${caught.length} turn(s) committed when ${agent.bin} exited (no hook committed them):`] : []),
        ...turnLines(caught, session),
        `${agent.bin} ${code.code === null ? `was killed by ${code.signal}` : `exited ${code.code}`}; session ${session.id} has ${turns.length - 1} turn(s) on ${session.branch}${pending.length > 0 ? `; ${pending.length} change(s) pending (no turn ended after them)` : ''}.`,
        `Review: forge log ${session.id} · forge inspect · undo: forge undo --session ${session.id} · continue: forge agent ${which} --session ${session.id}`,
      ].join('\n'),
      'report',
    );
    if (code.code !== 0) {
      const how = code.code === null ? `was killed by ${code.signal ?? 'a signal'}` : `exited ${code.code}`;
      process.stderr.write(`forge: error AGENT_FAILED: ${agent.bin} ${how}; the ${caught.length > 0 ? 'turns it finished are' : 'turns its hooks committed are'} on ${session.branch} (${turns.length - 1} turn(s)).\n`);
      throw new ReportedFailure(EXIT_AGENT_FAILED);
    }
  } finally {
    if (server !== null) await new Promise<void>((done) => server!.close(() => done()));
    await workdir.close();
    if (mounted) await held.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Mount where FUSE works (--mount insists, --copy never tries); otherwise, or when the directory
 * already holds a copy from an earlier run, copy. `why` says why not the mount.
 */
async function pickWorkdir(
  session: Session,
  dir: string,
  options: AgentOptions,
  config: ToolsConfig,
  queue: import('../../session/serial-queue').SerialQueue,
  openWorkdir: typeof import('../../agents/node/workdir').openWorkdir,
): Promise<{ workdir: import('../../agents/node/workdir').AgentWorkdir; why?: string }> {
  const mount: import('../../agents/node/workdir').MountProvider = async (s, at) => {
    const { mountSession } = await import('../../mount/node/mount-session');
    await mkdir(at, { recursive: true });
    const mounted = await mountSession(s, at, { config, queue });
    return { mode: 'mount', dir: mounted.dir, sync: async () => ({ changes: { added: [], modified: [], deleted: [] }, skipped: [] }), close: () => mounted.unmount() };
  };
  if (options.copy) return { workdir: await openWorkdir(session, { mode: 'copy', config, dir }) };
  if (options.mount) return { workdir: await openWorkdir(session, { mode: 'mount', config, dir, mount }) };
  const existing = await readdir(dir).catch(() => []);
  if (existing.length > 0) return { workdir: await openWorkdir(session, { mode: 'copy', config, dir }), why: 'the directory holds a copy from an earlier run' };
  try {
    return { workdir: await openWorkdir(session, { mode: 'mount', config, dir, mount }) };
  } catch (error) {
    if (!(error instanceof ForgeError && error.code === 'MOUNT_UNAVAILABLE')) throw error;
    return { workdir: await openWorkdir(session, { mode: 'copy', config, dir }), why: `no mount here (${error.message.replace(/\.$/, '')})` };
  }
}

/**
 * A resumed session's first run: hand the agent its own transcript as of the commit the session
 * was resumed from (unless the arguments already pick a conversation). Claude Code gets
 * `--resume <id>`; Codex `resume <id>` (after `exec` and its options, before the prompt).
 */
async function handOverTranscript(which: string, session: Session, dir: string, agentArgs: string[]): Promise<string[]> {
  const picked = which === 'claude' ? agentArgs.some((a) => ['-r', '--resume', '-c', '--continue', '--session-id'].includes(a) || a.startsWith('--resume=') || a.startsWith('--session-id=')) : agentArgs.includes('resume');
  if (picked) return agentArgs;
  const { seedTranscript } = await import('../../agents/node/resume-transcript');
  {
    const seeded = await seedTranscript(which === 'claude' ? 'claude-code' : 'codex', session, dir, process.env);
    if (seeded === null) return agentArgs;
    if ('reason' in seeded) {
      process.stderr.write(`forge: ${which} starts a new conversation: ${seeded.reason}.\n`);
      return agentArgs;
    }
    const parent = session.state.parent!;
    process.stderr.write(`forge: ${which} resumes its conversation as of ${parent.session} turn ${parent.turn} (${seeded.turns} turn(s), ${seeded.path})\n`);
    if (which === 'claude') return ['--resume', seeded.sessionId, ...agentArgs];
    if (agentArgs[0] !== 'exec') return ['resume', seeded.sessionId, ...agentArgs];
    // codex exec [options] resume <id> [prompt]: the prompt is the last argument when it is not an option.
    const last = agentArgs.at(-1);
    const hasPrompt = agentArgs.length > 1 && last !== undefined && !last.startsWith('-') && !(agentArgs.at(-2) ?? '').match(/^-(c|m|p|C|s|i)$|^--(config|model|profile|cd|sandbox|image|output-last-message|output-schema|color)$/);
    return hasPrompt ? [...agentArgs.slice(0, -1), 'resume', seeded.sessionId, last] : [...agentArgs, 'resume', seeded.sessionId];
  }
}

const NOTIFY_GRACE_MS = 5_000;

async function waitForHook(read: () => Promise<unknown[]>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until && (await read()).length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The agent's exit: its code, or the signal that ended it. */
interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The agent's executable: a path, or found on PATH (the shell that starts it would only say 127). */
async function findExecutable(bin: string): Promise<string | null> {
  const candidates = bin.includes('/') ? [bin] : (process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, bin));
  for (const candidate of candidates) if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  return null;
}

async function launch(bin: string, args: string[], cwd: string): Promise<AgentExit> {
  const found = await findExecutable(bin);
  if (found === null) {
    throw new ForgeError('AGENT_CLI_NOT_FOUND', `Cannot start ${bin}: not found${bin.includes('/') ? ' or not executable' : ' on PATH'}.`, { hint: `Install it (npm install -g @anthropic-ai/claude-code or @openai/codex), or point FORGE_CLAUDE_BIN / FORGE_CODEX_BIN at it.` });
  }
  return new Promise((resolve, reject) => {
    // The child changes into the directory itself, after exec: on a mount this process serves,
    // a chdir made inside spawn() would wait for this process's event loop, which spawn() blocks.
    const child = spawn('/bin/sh', ['-c', 'cd -- "$0" && exec "$@"', cwd, found, ...args], { stdio: 'inherit', env: process.env });
    child.on('error', (error) =>
      reject(new ForgeError('AGENT_CLI_NOT_FOUND', `Cannot start ${bin}: ${error.message}.`, { hint: `Install it (npm install -g @anthropic-ai/claude-code or @openai/codex), or point FORGE_CLAUDE_BIN / FORGE_CODEX_BIN at it.` })),
    );
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

async function runHook(kind: string, payloadArg: string | undefined, options: CommonOptions & { session: string; dir: string; socket?: string }): Promise<void> {
  const { commitAgentTurns, findCodexRollout, appendHookLog, whenSessionFree } = await import('../../agents/node/hook');
  const { parsePayload, readCappedStdin, claudeTranscriptPath, codexThreadId } = await import('../../agents/node/hook-input');
  if (kind !== 'claude-stop' && kind !== 'codex-notify') throw new ForgeError('INVALID_ARGUMENT', `Unknown hook "${kind}": claude-stop or codex-notify.`);
  const store = await openStore(options);
  const log = (entry: HookLogEntry) => appendHookLog(store.repo.commonDir, options.session, entry);
  const at = new Date().toISOString();
  try {
    let agent: AgentName;
    let transcript: string | null;
    let answer: { lastAssistantMessage?: string } = {};
    if (kind === 'claude-stop') {
      agent = 'claude-code';
      const payload = parsePayload(await readCappedStdin(process.stdin, kind), kind);
      transcript = await claudeTranscriptPath(payload['transcript_path'], process.env);
      if (typeof payload['last_assistant_message'] === 'string') answer = { lastAssistantMessage: payload['last_assistant_message'] };
    } else {
      agent = 'codex';
      const payload = parsePayload(payloadArg ?? '{}', kind);
      if (payload['type'] !== undefined && payload['type'] !== 'agent-turn-complete') {
        await log({ at, kind, ok: true, turns: [], event: String(payload['type']).slice(0, 100) });
        return;
      }
      transcript = await findCodexRollout(codexThreadId(payload['thread-id']), process.env);
    }
    if (transcript === null) throw new ForgeError('AGENT_TRANSCRIPT_NOT_FOUND', `The ${kind} hook got no transcript to read; the working directory's changes stay there until the next turn.`);
    if (options.socket !== undefined) {
      // The session is mounted: forge agent's process holds it and commits the turn.
      const { sendHook } = await import('../../agents/node/hook-socket');
      const reply = await sendHook(options.socket, { agent, transcript, ...answer });
      if (!reply.ok) throw new ForgeError(reply.error.code as 'AGENT_HOOK_REFUSED', reply.error.message);
      await log({ at, kind, ok: true, turns: reply.turns });
      for (const line of reply.lines) process.stderr.write(`forge: ${line}\n`);
      return;
    }
    // Codex does not wait for its notify program: forge agent's end-of-run catch-up may hold the session.
    const result = await whenSessionFree(async () => {
      const session = await store.open(options.session);
      try {
        const result = await commitAgentTurns(session, { agent, transcript, dir: options.dir, config: toolsConfig(store.repo.workdir), ...answer });
        return { commits: result.commits, lines: turnLines(result.commits, session) };
      } finally {
        await session.close();
      }
    });
    await log({ at, kind, ok: true, turns: result.commits.map((c) => c.turn) });
    // Claude Code shows a Stop hook's stderr only on failure; stdout would be read as hook output.
    for (const line of result.lines) process.stderr.write(`forge: ${line}\n`);
  } catch (error) {
    const forgeError = toForgeError(error);
    await log({ at, kind, ok: false, turns: [], error: { code: forgeError.code, message: forgeError.message.slice(0, 500) } }).catch(() => undefined);
    if (kind !== 'claude-stop') throw error;
    // Claude Code reads a Stop hook's exit 2 as "do not stop" and hands its stderr to the model,
    // which would answer forge's error as a new turn: every failure of this hook exits 1, which
    // Claude Code shows the user and goes on.
    reportError(forgeError, false);
    throw new ReportedFailure(CLAUDE_HOOK_FAILED);
  }
}

export function registerAgent(program: Command): void {
  const agent = program.command('agent').description('run Claude Code or Codex CLI in a forge session: one commit per agent turn, code and conversation');
  common(agent.command('claude').argument('[args...]', 'arguments for claude, after --'))
    .description('run Claude Code (claude) with the session as its working directory')
    .option('--session <id>', 'continue this session')
    .option('--base <ref>', 'start a new session here (default HEAD)')
    .option('--copy', 'materialize the session into a directory (no FUSE needed); each turn brings its changes back')
    .option('--mount', 'mount the session (forge mount; the default where FUSE works)')
    .option('--dir <path>', 'the working directory (default: one per session under the temp directory)')
    .action((args: string[], options: AgentOptions) => runAgent('claude', args, options));
  common(agent.command('codex').argument('[args...]', 'arguments for codex, after --'))
    .description('run Codex CLI (codex) with the session as its working directory')
    .option('--session <id>', 'continue this session')
    .option('--base <ref>', 'start a new session here (default HEAD)')
    .option('--copy', 'materialize the session into a directory (no FUSE needed); each turn brings its changes back')
    .option('--mount', 'mount the session (forge mount; the default where FUSE works)')
    .option('--dir <path>', 'the working directory (default: one per session under the temp directory)')
    .action((args: string[], options: AgentOptions) => runAgent('codex', args, options));
  common(agent.command('hook').argument('<kind>', 'claude-stop | codex-notify').argument('[payload]', "Codex's notification (JSON)"))
    .description('(run by the agent) commit the turn that just ended')
    .requiredOption('--session <id>', 'the session')
    .requiredOption('--dir <path>', 'the working directory')
    .option('--socket <path>', "forge agent's socket, when it holds the session (a mount)")
    .action((kind: string, payload: string | undefined, options: CommonOptions & { session: string; dir: string; socket?: string }) => runHook(kind, payload, options));
}
