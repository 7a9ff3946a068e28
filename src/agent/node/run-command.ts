/**
 * run_command (a Node adapter: it needs a real directory and child processes): materialize the
 * current view (base + pending) into a temporary directory, run a shell command there with a
 * timeout and an output cap, and answer with the exit code and the output. By default the
 * command's file changes are thrown away; with apply_changes the files it changed, added or
 * deleted come back into the pending layer (through the view the registry records, so they are
 * one edit for Undo). The temporary directory is always removed.
 *
 * What the command sees: the visible files only (no .forge/, no denied paths such as .env), and
 * the environment without variables that look like secrets (API keys, tokens, passwords) or
 * that point git at another repository. New files ignored by the view's .gitignore files are
 * not brought back (nor walked), so `npm install` does not import node_modules/.
 */
import { spawn } from 'node:child_process';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ForgeError, toForgeError } from '../../errors';
import { defineTool, type ToolContext } from '../../tools';
import { applyChanges, detectChanges, materializeView } from './dir-changes';

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

function execute(command: string, cwd: string, timeoutMs: number, options: RunCommandOptions, maxOutput: number): Promise<Execution> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const posix = process.platform !== 'win32';
    const output = new OutputCollector(maxOutput);
    let timedOut = false;
    let cancelled = false;
    const child = spawn(command, {
      cwd,
      shell: options.shell ?? true,
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
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
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

export function createRunCommandTool(options: RunCommandOptions = {}) {
  const defaultTimeoutS = options.defaultTimeoutS ?? 30;
  const maxTimeoutS = options.maxTimeoutS ?? 600;
  const maxOutput = options.maxOutputBytes ?? 30_000;
  const maxApply = options.maxApplyFiles ?? 1000;
  const Input = z.strictObject({
    command: z.string().min(1).describe('Shell command, run from the root of a temporary copy of the workspace, e.g. "node --test" or "npm test".'),
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

  return defineTool({
    name: 'run_command',
    description:
      'Run a shell command (tests, a build, a linter, a generator) in a temporary copy of the workspace as it is now, your pending changes included. ' +
      'Returns the exit code and the output (stdout and stderr together; long output keeps its beginning and end). ' +
      `The command is killed after timeout_s seconds (default ${defaultTimeoutS}). It has no terminal and no input. ` +
      'Its file changes are thrown away unless apply_changes is true. Secrets (.env files, API keys in the environment) are not available to it.',
    input: Input,
    sideEffects: true,
    async handler(input, ctx: ToolContext): Promise<RunCommandOutput> {
      const root = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'forge-run-')).catch((error: unknown) => {
        throw new ForgeError('COMMAND_FAILED_TO_START', `run_command could not create a temporary directory: ${toForgeError(error).message}`);
      });
      try {
        const work = join(root, 'work');
        const snapshot = await materializeView(ctx.vfs, ctx.config, work);

        const run = await execute(input.command, work, (input.timeout_s ?? defaultTimeoutS) * 1000, options, maxOutput);
        if (run.cancelled) throw new ForgeError('AGENT_CANCELLED', 'run_command was cancelled: the command was killed and its changes were thrown away.');

        const { changes, disk } = await detectChanges(work, snapshot);
        const count = changes.added.length + changes.modified.length + changes.deleted.length;
        const requested = input.apply_changes === true;
        const tooMany = count > maxApply;
        let skipped: RunCommandOutput['skipped'];
        let applied = false;
        if (requested && count > 0 && !run.timedOut && !tooMany) {
          skipped = await applyChanges(ctx.vfs, ctx.config, changes, disk, 'apply_changes');
          applied = true;
        }
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
        };
        return { ...out, message: summaryMessage(out, requested, tooMany, maxApply) };
      } finally {
        await removeDir(root);
      }
    },
  });
}
