/**
 * The worker thread of one repository-tool call (bundled as dist/repo-tool-worker.cjs): runs
 * the in-thread QuickJS runner here, where the host can terminate it, and sends every `vfs`
 * operation to the host as a message. Memory it used is reported so the host can drop a worker
 * that grew instead of keeping it for the next call.
 */
import { parentPort } from 'node:worker_threads';
import { fromWire, toWire, type FromWorker, type ToWorker, type VfsMethod } from '../worker-protocol';
import { QuickJsSandbox } from '../quickjs-sandbox';
import type { SandboxVfs } from '../wasm-sandbox';
import { requireQuickJs } from './require-quickjs';

const port = parentPort!;
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let nextId = 1;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();

function hostCall<T>(method: VfsMethod, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post({ type: 'vfs', id, method, args }, transfer);
  });
}

const vfs: SandboxVfs = {
  readFile: (path) => hostCall('readFile', [path]),
  // The content is this worker's own copy: moved to the host, not copied again.
  writeFile: (path, content) => hostCall('writeFile', [path, content], content.byteOffset === 0 && content.byteLength === content.buffer.byteLength ? [content.buffer as ArrayBuffer] : []),
  deleteFile: (path) => hostCall('deleteFile', [path]),
  exists: (path) => hostCall('exists', [path]),
  list: (dir) => hostCall('list', [dir]),
  stat: (path) => hostCall('stat', [path]),
};

/** This call's WebAssembly memory: how far it grew is reported at the end. */
let memory: WebAssembly.Memory | null = null;
let sandbox: QuickJsSandbox | null = null;
const report = () => memory?.buffer.byteLength ?? 0;

port.on('message', (message: ToWorker) => {
  if (message.type === 'vfs-result') {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.value);
    else waiter?.reject(fromWire(message.error));
    return;
  }
  sandbox ??= new QuickJsSandbox(requireQuickJs, {
    maxStackBytes: message.maxStackBytes,
    onStart: (started) => {
      memory = started;
      post({ type: 'started' });
    },
  });
  const work = message.type === 'inspect' ? sandbox.inspect(message.source, message.filename, message.limits) : sandbox.execute(message.source, message.filename, vfs, message.args, message.limits);
  work.then(
    (value) => post({ type: 'done', ok: true, value, memoryBytes: report() }),
    (error: unknown) => post({ type: 'done', ok: false, error: toWire(error), memoryBytes: report() }),
  );
});
