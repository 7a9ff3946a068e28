/**
 * The `vfs` a repository tool gets inside QuickJS: raw async host functions (each returns a
 * guest promise settled when the host's SandboxVfs call settles), wrapped by the prelude of
 * quickjs-run.ts. Values cross as JSON text or ArrayBuffers, never as C strings.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { ForgeError, toForgeError } from '../../errors';
import type { Run } from './quickjs-run';
import type { SandboxVfs } from './wasm-sandbox';

/** A guest value parsed from JSON (no NUL inside: JSON escapes it) by JSON.parse as the context started. */
export function guestJson(run: Run, json: string): QuickJSHandle {
  const { vm } = run;
  const text = vm.newString(json);
  const parsed = vm.callFunction(run.jsonParse, vm.undefined, text);
  text.dispose();
  return vm.unwrapResult(parsed);
}

/** The `vfs` object: raw async host functions wrapped by the prelude. */
export function guestVfs(run: Run, vfs: SandboxVfs): QuickJSHandle {
  const { vm } = run;
  const host = vm.newObject();
  const define = (name: string, impl: (...args: QuickJSHandle[]) => Promise<(vm: QuickJSContext) => QuickJSHandle>) => {
    const fn = vm.newFunction(name, (...args) => hostCall(run, () => impl(...args)));
    vm.setProp(host, name, fn);
    fn.dispose();
  };
  // The prelude sends every string as JSON text (see VFS_PRELUDE).
  const str = (h: QuickJSHandle | undefined): string => {
    const parsed: unknown = h !== undefined && vm.typeof(h) === 'string' ? JSON.parse(vm.getString(h)) : undefined;
    if (typeof parsed !== 'string') throw new ForgeError('INVALID_ARGUMENT', 'vfs takes string paths and contents.');
    return parsed;
  };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const encoder = new TextEncoder();
  define('readText', async (p) => {
    const path = str(p);
    const bytes = await vfs.readFile(path);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new ForgeError('BINARY_FILE', `${path} is not UTF-8 text; read it with vfs.readFile(path, 'bytes').`, { data: { path } });
    }
    const json = JSON.stringify(text);
    return (v) => v.newString(json);
  });
  define('readBytes', async (p) => {
    const bytes = await vfs.readFile(str(p));
    return (v) => v.newArrayBuffer(bytes.slice().buffer);
  });
  define('writeText', async (p, c) => {
    const path = str(p);
    await queuedWrite(run, vfs, path, encoder.encode(str(c)));
    return (v) => v.undefined;
  });
  define('writeBytes', async (p, c) => {
    const path = str(p);
    if (c === undefined) throw new ForgeError('INVALID_ARGUMENT', 'writeFile needs content.');
    await queuedWrite(run, vfs, path, vm.getArrayBuffer(c).consume((view) => view.value.slice()));
    return (v) => v.undefined;
  });
  define('deleteFile', async (p) => {
    await vfs.deleteFile(str(p));
    return (v) => v.undefined;
  });
  define('exists', async (p) => {
    const exists = await vfs.exists(str(p));
    return (v) => (exists ? v.true : v.false);
  });
  define('list', async (p) => {
    const entries = await vfs.list(str(p));
    const json = JSON.stringify(entries);
    return () => guestJson(run, json);
  });
  define('stat', async (p) => {
    const stat = await vfs.stat(str(p));
    const json = JSON.stringify(stat);
    return () => guestJson(run, json);
  });
  const halted = vm.newFunction('halted', () => (run.limitHit !== null ? vm.true : vm.false));
  vm.setProp(host, 'halted', halted);
  halted.dispose();
  const prelude = run.prelude;
  const wrapped = vm.unwrapResult(vm.callFunction(prelude, vm.undefined, host));
  host.dispose();
  return wrapped;
}

/**
 * A write handed to the host, which holds its own copy of the content until the write settles. A
 * tool that does not await its writes could queue thousands of copies (3,000 x 1 MiB grew the
 * process to 890 MB): the copies in the queue may not exceed the memory limit; past it the call
 * ends at its memory limit.
 */
async function queuedWrite(run: Run, vfs: SandboxVfs, path: string, content: Uint8Array): Promise<void> {
  // Read now: a worker's vfs moves the buffer to the host (content.length is 0 after).
  const size = content.length;
  if (run.queuedBytes + size > run.limits.memory_limit_bytes) {
    run.limitHit ??= 'memory';
    throw new ForgeError('REPO_TOOL_MEMORY_LIMIT', `Writes not yet finished hold more than the ${run.limits.memory_limit_bytes} byte memory limit; await each vfs.writeFile.`);
  }
  run.queuedBytes += size;
  try {
    await vfs.writeFile(path, content);
  } finally {
    run.queuedBytes -= size;
  }
}

/**
 * One host operation: arguments are read now (the handles die when the function returns), the
 * work is async, and the guest's promise is settled later unless the run ended meanwhile.
 */
function hostCall(run: Run, start: () => Promise<(vm: QuickJSContext) => QuickJSHandle>): QuickJSHandle {
  const { vm } = run;
  const deferred = vm.newPromise();
  let work: Promise<(vm: QuickJSContext) => QuickJSHandle>;
  try {
    // A run stopped at a limit starts nothing more (the guest is being interrupted).
    if (run.limitHit !== null) throw new ForgeError('REPO_TOOL_FAILED', 'The call is over: it reached a limit.');
    work = start();
  } catch (error) {
    work = Promise.reject(error);
  }
  const settle = (make: (vm: QuickJSContext) => QuickJSHandle, ok: boolean) => {
    if (run.disposed) return;
    try {
      const value = make(vm);
      if (ok) deferred.resolve(value);
      else deferred.reject(value);
      if (value !== vm.undefined && value !== vm.true && value !== vm.false) value.dispose();
    } catch {
      // The guest could not take the value (out of memory): the run is over.
      run.limitHit ??= 'memory';
    }
    deferred.dispose();
    run.recheck();
  };
  const settled = work.then(
    (make) => settle(make, true),
    (error: unknown) => {
      const forgeError = toForgeError(error);
      settle((v) => {
        const handle = v.newError({ name: 'ForgeError', message: `${forgeError.code}: ${forgeError.message}` });
        const code = v.newString(forgeError.code);
        v.setProp(handle, 'code', code);
        code.dispose();
        return handle;
      }, false);
    },
  );
  // Tracked until settled: the call waits for the operations a tool started and did not await (Run.drain).
  run.inflight.add(settled);
  void settled.finally(() => run.inflight.delete(settled));
  return deferred.handle;
}
