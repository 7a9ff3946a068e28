/**
 * The WasmSandbox Node runs repository tools in: each call runs the QuickJS runner inside a
 * worker thread (node/worker-main.ts), and the host terminates the worker at the deadline. An
 * interrupt check inside QuickJS stops ordinary guest code on time, but a native built-in (a
 * sort of millions of strings, `includes` over 2**53 indices) never reaches it; terminating the
 * thread stops anything. The host's event loop stays free meanwhile, so `forge mcp` answers
 * other requests (a ping) while a tool runs.
 *
 * The worker has no view: its `vfs` operations arrive here as messages and go through the
 * call's SandboxVfs (the host's one write path; a write in flight when the worker is killed
 * settles before the call fails, so it is rolled back with the call). The worker's own JS heap
 * is bounded by `resourceLimits`; the tool's heap by its WebAssembly memory's maximum. A worker
 * is kept for the next call only when the call ended normally and its memory did not grow.
 */
import { Worker } from 'node:worker_threads';
import { ForgeError } from '../../../errors';
import type { RepoToolLimits } from '../limits';
import { limitError } from '../quickjs-run';
import { fromWire, toWire, type FromWorker, type ToWorker } from '../worker-protocol';
import type { SandboxVfs, ToolModuleInfo, WasmSandbox } from '../wasm-sandbox';

export interface NodeWorkerSandboxOptions {
  /** The worker script: dist/repo-tool-worker.cjs of this package. */
  entry: string | URL;
}

/** A worker's stack (MiB), far above what QuickJS's own limit lets a guest use. */
const WORKER_STACK_MB = 8;
/**
 * QuickJS's stack limit inside such a worker (each guest frame takes ~4x as much host stack):
 * ~1,300 plain frames. Not more: QuickJS's JSON.stringify costs depth squared on nested values.
 */
const WORKER_MAX_STACK_BYTES = 256 * 1024;
/** The memory a fresh instance starts with; a call that grew past it gets a fresh worker next time. */
const BASE_MEMORY_BYTES = 16 << 20;
/** How long a worker may take to start and load QuickJS before the tool's clock starts. */
const STARTUP_LIMIT_MS = 30_000;

/** Time the in-worker interrupt check gets to stop the tool cleanly before the thread is killed. */
export function hardStopGraceMs(limits: RepoToolLimits): number {
  return Math.min(1000, 100 + Math.floor(limits.time_limit_ms / 5));
}

function resourceLimitsFor(limits: RepoToolLimits) {
  const heapMb = Math.ceil(limits.memory_limit_bytes / (1 << 20));
  // Host-side copies in the worker (a file read, the result, an error's text) are bounded by the tool's own limits.
  return { maxOldGenerationSizeMb: 2 * heapMb + 64, maxYoungGenerationSizeMb: 16, stackSizeMb: WORKER_STACK_MB };
}

export class NodeWorkerSandbox implements WasmSandbox {
  private idle: { worker: Worker; key: string } | null = null;

  constructor(private readonly options: NodeWorkerSandboxOptions) {}

  inspect(source: string, filename: string, limits: RepoToolLimits): Promise<ToolModuleInfo> {
    return this.run({ type: 'inspect', source, filename, limits, maxStackBytes: WORKER_MAX_STACK_BYTES }, null, filename, limits) as Promise<ToolModuleInfo>;
  }

  execute(source: string, filename: string, vfs: SandboxVfs, args: unknown, limits: RepoToolLimits): Promise<string> {
    return this.run({ type: 'execute', source, filename, args, limits, maxStackBytes: WORKER_MAX_STACK_BYTES }, vfs, filename, limits) as Promise<string>;
  }

  /** Terminates the idle worker (a process that is done with tools). */
  async close(): Promise<void> {
    const idle = this.idle;
    this.idle = null;
    await idle?.worker.terminate();
  }

  private take(limits: RepoToolLimits): Worker {
    const key = JSON.stringify(resourceLimitsFor(limits));
    const idle = this.idle;
    this.idle = null;
    if (idle !== null && idle.key === key) {
      idle.worker.ref();
      return idle.worker;
    }
    void idle?.worker.terminate();
    return new Worker(this.options.entry, { resourceLimits: resourceLimitsFor(limits), stdout: false, stderr: false });
  }

  private keep(worker: Worker, limits: RepoToolLimits): void {
    worker.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
    // An idle worker must not keep the process alive, and a worker that ends while idle is forgotten.
    worker.unref();
    worker.once('exit', () => {
      if (this.idle?.worker === worker) this.idle = null;
    });
    if (this.idle !== null) void this.idle.worker.terminate();
    this.idle = { worker, key: JSON.stringify(resourceLimitsFor(limits)) };
  }

  private run(request: ToWorker, vfs: SandboxVfs | null, filename: string, limits: RepoToolLimits): Promise<string | ToolModuleInfo> {
    const worker = this.take(limits);
    return new Promise((resolve, reject) => {
      const hostOps = new Set<Promise<unknown>>();
      let finished = false;
      let timer = setTimeout(() => stop(new ForgeError('INTERNAL', `The repository-tool worker did not start within ${STARTUP_LIMIT_MS} ms.`)), STARTUP_LIMIT_MS);
      const finish = (outcome: () => void) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        // Host operations still in flight settle first: a write lands inside the call (and is rolled back with it).
        void Promise.allSettled([...hostOps]).then(outcome);
      };
      const stop = (error: ForgeError) => {
        void worker.terminate();
        finish(() => reject(error));
      };
      worker.on('message', (message: FromWorker) => {
        if (finished) return;
        if (message.type === 'started') {
          clearTimeout(timer);
          timer = setTimeout(() => stop(limitError('timeout', filename, limits)), limits.time_limit_ms + hardStopGraceMs(limits));
          return;
        }
        if (message.type === 'vfs') {
          const op = (async () => {
            if (vfs === null) throw new ForgeError('INVALID_ARGUMENT', 'A module has no vfs while it loads.');
            const method = vfs[message.method] as (...args: unknown[]) => Promise<unknown>;
            return method.apply(vfs, message.args);
          })();
          hostOps.add(op);
          op.then(
            (value) => !finished && worker.postMessage({ type: 'vfs-result', id: message.id, ok: true, value: value === undefined ? null : value } satisfies ToWorker),
            (error: unknown) => !finished && worker.postMessage({ type: 'vfs-result', id: message.id, ok: false, error: toWire(error) } satisfies ToWorker),
          ).finally(() => hostOps.delete(op));
          return;
        }
        const reusable = message.memoryBytes <= BASE_MEMORY_BYTES;
        finish(() => {
          if (reusable) this.keep(worker, limits);
          else void worker.terminate();
          if (message.ok) resolve(message.value);
          else reject(fromWire(message.error));
        });
      });
      worker.on('error', (error: Error & { code?: string }) => {
        // resourceLimits exceeded: the worker's own heap ran out.
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') stop(limitError('memory', filename, limits));
        else stop(new ForgeError('INTERNAL', `The repository-tool worker failed: ${error.message}`, { cause: error }));
      });
      worker.on('exit', (code) => {
        if (!finished) stop(new ForgeError('INTERNAL', `The repository-tool worker exited (code ${code}) before the call ended.`));
      });
      worker.postMessage(request);
    });
  }
}
