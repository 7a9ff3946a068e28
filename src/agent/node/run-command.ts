/**
 * run_command (a Node adapter: it needs a real directory and child processes): run a shell
 * command in the current view (base + pending) with a timeout and an output cap, and answer with
 * the exit code and the output. Where the session can be mounted (`workspace`, FUSE) the command
 * runs in the mount: nothing is copied, the session's ignored files (node_modules/) are there,
 * and what it changes goes into the pending layer through the tool call's view, after a
 * savepoint (a RecordingVfs) taken before it starts; without apply_changes the pending layer is
 * rolled back to it afterwards. Otherwise the view is materialized into a temporary directory
 * (with the scratch directory's ignored files linked in), the command runs there and, with
 * apply_changes, the files it changed, added or deleted come back into the pending layer; the
 * temporary directory is always removed. Either way the applied changes are one edit for Undo.
 *
 * What the command sees: the visible files only (no .forge/, no denied paths such as .env), and
 * the environment without variables that look like secrets (API keys, tokens, passwords) or
 * that point git at another repository. New files ignored by the view's .gitignore files are
 * not brought back (nor walked), so `npm install` does not import node_modules/.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ForgeError, toForgeError } from '../../errors';
import { defineTool, RecordingVfs, type ToolContext, type ToolsConfig } from '../../tools';
import type { WritableVfs } from '../../vfs/types';
import { applyChanges, detectChanges, linkScratch, materializeView, type DirChanges } from './dir-changes';

/** A directory that is the session's live view (forge mount): a command runs there without a copy. */
export interface CommandMount {
  readonly dir: string;
  /**
   * Runs `body` with every change made in the mount written into `vfs` (the command's savepoint)
   * instead of being an edit of its own; returns once what the mount still buffered is written.
   */
  lend<T>(vfs: WritableVfs, body: () => Promise<T>): Promise<T>;
}

/** Where a session's commands run (the mount adapter supplies it: src/mount/node/command-mount.ts). */
export interface CommandWorkspace {
  /** The session mounted (made on first use and kept), or null where it cannot be (no FUSE): then a copy. */
  mount(config: ToolsConfig): Promise<CommandMount | null>;
  /** The session's scratch directory (its ignored files: node_modules/...), linked into a copy. */
  scratchDir?(): string | undefined;
}

export interface RunCommandOptions {
  /** Default 30 s (spec 002: tool execution timeouts, 30 s default). */
  defaultTimeoutS?: number;
  /** Largest timeout_s a call may ask for. Default 600 s. */
  maxTimeoutS?: number;
  /** Output kept for the model (stdout and stderr interleaved): the first and the last half. Default 30,000 bytes. */
  maxOutputBytes?: number;
  /** More changed files than this are not applied. Default 1,000. */
  maxApplyFiles?: number;
  /** The shell (default: /bin/sh on POSIX, cmd.exe on Windows). */
  shell?: string;
  /** Cancels a running command (killed with its process group). */
  signal?: AbortSignal;
  /** The environment the command starts from (default process.env), before secrets are removed. */
  env?: Record<string, string | undefined>;
  /** Where temporary directories are made. Default os.tmpdir(). */
  tmpDir?: string;
  /** The session's mount and scratch directory; without it every command runs in a plain copy. */
  workspace?: CommandWorkspace;
}

export interface RunCommandOutput {
  command: string;
  /** null when the command was killed (timeout, cancellation). */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  /** stdout and stderr as they came, cut in the middle beyond the cap. */
  output: string;
  output_truncated: boolean;
  output_bytes: number;
  /** Files the command changed, relative to the workspace. */
  changes: { added: string[]; modified: string[]; deleted: string[] };
  applied: boolean;
  /** Changed files that could not be brought back (sandbox), with why. */
  skipped?: Array<{ path: string; code: string; message: string }>;
  /** Where the command ran: the session's mount, or a temporary copy of the view. */
  workspace: 'mount' | 'copy';
  message: string;
}

/** Environment variables never passed to a command: secrets, and git's pointers at another repository. */
const SECRET_NAME = /(^|_)(API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_?KEY)(_|$)/i;
const GIT_POINTERS = new Set(['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_ALTERNATE_OBJECT_DIRECTORIES']);

export function commandEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name) || GIT_POINTERS.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Keeps the first and the last half of a stream of bytes. */
export class OutputCollector {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  total = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headLimit = Math.ceil(this.max / 2);
    let rest = chunk;
    if (this.headBytes < headLimit) {
      const take = rest.subarray(0, headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length > 0) {
      const tailLimit = this.max - headLimit;
      const joined = Buffer.concat([this.tail, rest]);
      this.tail = joined.subarray(Math.max(0, joined.length - tailLimit));
    }
  }

  get truncated(): boolean {
    return this.total > this.max;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (!this.truncated) return head + this.tail.toString('utf8');
    const omitted = this.total - this.headBytes - this.tail.length;
    return `${head}\n[… ${omitted} bytes of output omitted …]\n${this.tail.toString('utf8')}`;
  }
}

interface Execution {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  output: OutputCollector;
}

/**
 * The child changes into a mount itself: with spawn's `cwd` the chdir happens before exec while
 * libuv's spawn holds this process's loop waiting for that exec, and a chdir into a mount this
 * process serves would wait for the loop forever.
 */
function spawnIn(command: string, cwd: string, servedHere: boolean, options: RunCommandOptions, extra: SpawnOptions): ChildProcess {
  if (!servedHere || process.platform === 'win32') return spawn(command, { ...extra, cwd, shell: options.shell ?? true });
  const shell = options.shell ?? '/bin/sh';
  return spawn('/bin/sh', ['-c', 'cd -- "$1" || exit 126\nexec "$2" -c "$3"', 'forge-run', cwd, shell, command], { ...extra, cwd: '/' });
}

function execute(command: string, cwd: string, timeoutMs: number, options: RunCommandOptions, maxOutput: number, servedHere = false): Promise<Execution> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const posix = process.platform !== 'win32';
    const output = new OutputCollector(maxOutput);
    let timedOut = false;
    let cancelled = false;
    const child = spawnIn(command, cwd, servedHere, options, {
      // Its own process group, so a timeout kills what the command started too.
      detached: posix,
      env: commandEnv(options.env ?? process.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        if (posix) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
    // Background processes left by the command would keep the pipes (and the temp dir) busy.
    child.on('exit', () => killGroup());
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new ForgeError('COMMAND_FAILED_TO_START', `run_command could not start the command: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, signal, timedOut, cancelled, durationMs: Date.now() - started, output });
    });
  });
}

async function removeDir(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A command may have made directories read-only: give them back, then remove.
    const unlock = async (path: string): Promise<void> => {
      const st = await lstat(path).catch(() => null);
      if (!st?.isDirectory()) return;
      await chmod(path, 0o700).catch(() => {});
      for (const name of await readdir(path).catch(() => [] as string[])) await unlock(join(path, name));
    };
    await unlock(dir);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

function summaryMessage(out: Omit<RunCommandOutput, 'message'>, requested: boolean, tooMany: boolean, maxApply: number): string {
  const status = out.timed_out ? `The command timed out after ${(out.duration_ms / 1000).toFixed(1)} s and was killed.` : out.exit_code === null ? `The command was killed (${out.signal}).` : `Exit code ${out.exit_code}.`;
  const count = out.changes.added.length + out.changes.modified.length + out.changes.deleted.length;
  if (count === 0) return `${status} The command changed no files.`;
  if (!requested) return `${status} ${count} file change(s) made by the command were thrown away (apply_changes was not set).`;
  if (out.timed_out) return `${status} Its ${count} file change(s) were NOT applied: a timed-out command may have left files half-written.`;
  if (tooMany) return `${status} Its ${count} file change(s) were NOT applied: more than ${maxApply}. Narrow the command or add the generated files to .gitignore.`;
  const skipped = out.skipped?.length ?? 0;
  return `${status} ${count - skipped} file change(s) applied to the workspace${skipped > 0 ? `; ${skipped} skipped (see skipped)` : ''}.`;
}

const LIST_CAP = 200;

/** A savepoint's changes as run_command reports them. */
function changesOf(files: ReadonlyArray<{ path: string; existedBefore: boolean; existsAfter: boolean }>): DirChanges {
  const changes: DirChanges = { added: [], modified: [], deleted: [] };
  for (const file of files) {
    if (!file.existedBefore) changes.added.push(file.path);
    else if (file.existsAfter) changes.modified.push(file.path);
    else changes.deleted.push(file.path);
  }
  for (const list of Object.values(changes)) list.sort();
  return changes;
}

interface Ran {
  run: Execution;
  changes: DirChanges;
  applied: boolean;
  tooMany: boolean;
  skipped?: RunCommandOutput['skipped'];
}

export function createRunCommandTool(options: RunCommandOptions = {}) {
  const defaultTimeoutS = options.defaultTimeoutS ?? 30;
  const maxTimeoutS = options.maxTimeoutS ?? 600;
  const maxOutput = options.maxOutputBytes ?? 30_000;
  const maxApply = options.maxApplyFiles ?? 1000;
  const Input = z.strictObject({
    command: z.string().min(1).describe('Shell command, run from the root of the workspace, e.g. "node --test" or "npm test".'),
    timeout_s: z
      .number()
      .int()
      .min(1)
      .max(maxTimeoutS)
      .optional()
      .describe(`Seconds before the command is killed. Default ${defaultTimeoutS}, at most ${maxTimeoutS}.`),
    apply_changes: z
      .boolean()
      .optional()
      .describe('true: bring the files the command changed, added or deleted back into the workspace (e.g. a formatter or code generator). Default false: its file changes are thrown away.'),
  });

  /** Whether changes are kept: asked for, the command finished, and not too many. */
  const keeps = (requested: boolean, run: Execution, count: number) => requested && count > 0 && !run.timedOut && count <= maxApply;

  /** In the mount: the command's writes land in a savepoint over the call's view, rolled back unless kept. */
  async function runInMount(mount: CommandMount, command: string, timeoutMs: number, requested: boolean, ctx: ToolContext): Promise<Ran> {
    const savepoint = new RecordingVfs(ctx.vfs);
    let run: Execution;
    try {
      run = await mount.lend(savepoint, () => execute(command, mount.dir, timeoutMs, options, maxOutput, true));
    } catch (error) {
      await savepoint.rollback();
      throw error;
    }
    const changes = changesOf(await savepoint.changes(ctx.hashContent));
    const count = changes.added.length + changes.modified.length + changes.deleted.length;
    const applied = !run.cancelled && keeps(requested, run, count);
    if (!applied) await savepoint.rollback();
    if (run.cancelled) throw new ForgeError('AGENT_CANCELLED', 'run_command was cancelled: the command was killed and its changes were thrown away.');
    return { run, changes, applied, tooMany: count > maxApply };
  }

  /** In a temporary copy of the view, with the scratch directory's ignored files linked in. */
  async function runInCopy(command: string, timeoutMs: number, requested: boolean, ctx: ToolContext): Promise<Ran> {
    const root = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'forge-run-')).catch((error: unknown) => {
      throw new ForgeError('COMMAND_FAILED_TO_START', `run_command could not create a temporary directory: ${toForgeError(error).message}`);
    });
    try {
      const work = join(root, 'work');
      const snapshot = await materializeView(ctx.vfs, ctx.config, work);
      const scratch = options.workspace?.scratchDir?.();
      if (scratch !== undefined) await linkScratch(scratch, work, snapshot);

      const run = await execute(command, work, timeoutMs, options, maxOutput);
      if (run.cancelled) throw new ForgeError('AGENT_CANCELLED', 'run_command was cancelled: the command was killed and its changes were thrown away.');

      const { changes, disk } = await detectChanges(work, snapshot);
      const count = changes.added.length + changes.modified.length + changes.deleted.length;
      let skipped: RunCommandOutput['skipped'];
      let applied = false;
      if (keeps(requested, run, count)) {
        skipped = await applyChanges(ctx.vfs, ctx.config, changes, disk, 'apply_changes');
        applied = true;
      }
      return { run, changes, applied, tooMany: count > maxApply, ...(skipped ? { skipped } : {}) };
    } finally {
      await removeDir(root);
    }
  }

  return defineTool({
    name: 'run_command',
    description:
      'Run a shell command (tests, a build, a linter, a generator) in the workspace as it is now, your pending changes included (the session mounted, or a temporary copy). ' +
      'Returns the exit code and the output (stdout and stderr together; long output keeps its beginning and end). ' +
      `The command is killed after timeout_s seconds (default ${defaultTimeoutS}). It has no terminal and no input. ` +
      'Its file changes are thrown away unless apply_changes is true. Secrets (.env files, API keys in the environment) are not available to it.',
    input: Input,
    sideEffects: true,
    async handler(input, ctx: ToolContext): Promise<RunCommandOutput> {
      const timeoutMs = (input.timeout_s ?? defaultTimeoutS) * 1000;
      const requested = input.apply_changes === true;
      const mount = await options.workspace?.mount(ctx.config);
      const ran = mount ? await runInMount(mount, input.command, timeoutMs, requested, ctx) : await runInCopy(input.command, timeoutMs, requested, ctx);
      const { run, changes, applied, tooMany, skipped } = ran;
      const out: Omit<RunCommandOutput, 'message'> = {
        command: input.command,
        exit_code: run.exitCode,
        signal: run.signal,
        timed_out: run.timedOut,
        duration_ms: run.durationMs,
        output: run.output.text(),
        output_truncated: run.output.truncated,
        output_bytes: run.output.total,
        changes: { added: changes.added.slice(0, LIST_CAP), modified: changes.modified.slice(0, LIST_CAP), deleted: changes.deleted.slice(0, LIST_CAP) },
        applied,
        ...(skipped && skipped.length > 0 ? { skipped } : {}),
        workspace: mount ? 'mount' : 'copy',
      };
      return { ...out, message: summaryMessage(out, requested, tooMany, maxApply) };
    },
  });
}
