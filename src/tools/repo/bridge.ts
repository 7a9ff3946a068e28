/**
 * The host side of a repository tool's `vfs`: every path goes through the same sandbox as the
 * built-in tools (checkPath, same roles, same PATH_* codes as write_file), then to the call's
 * recording view. A path the sandbox refuses fails the whole call with that code, even if the
 * tool catches the error: a tool cannot probe the sandbox and carry on as if nothing happened.
 */
import type { ForgeError } from '../../errors';
import { toForgeError } from '../../errors';
import type { ToolContext } from '../context';
import { checkPath, isVisiblePath, type PathRole } from '../sandbox';
import type { SandboxVfs } from './wasm-sandbox';

export interface SandboxBridge {
  vfs: SandboxVfs;
  /** The first path the sandbox refused during the call, if any. */
  readonly violation: ForgeError | null;
}

export function sandboxBridge(ctx: ToolContext): SandboxBridge {
  let violation: ForgeError | null = null;
  const allowed = async (method: string, path: string, role: PathRole): Promise<string> => {
    try {
      return await checkPath(ctx.vfs, ctx.config, { field: `vfs.${method}`, path, role });
    } catch (error) {
      const forgeError = toForgeError(error);
      violation ??= forgeError;
      throw forgeError;
    }
  };
  const vfs: SandboxVfs = {
    readFile: async (path) => ctx.vfs.readFile(await allowed('readFile', path, 'read')),
    writeFile: async (path, content) => ctx.vfs.writeFile(await allowed('writeFile', path, 'write'), content),
    deleteFile: async (path) => ctx.vfs.deleteFile(await allowed('deleteFile', path, 'delete')),
    exists: async (path) => ctx.vfs.exists(await allowed('exists', path, 'read')),
    stat: async (path) => {
      const stat = await ctx.vfs.stat(await allowed('stat', path, 'read'));
      return stat === null ? null : { type: stat.type, size: stat.size ?? 0 };
    },
    list: async (dir) => {
      const entries = await ctx.vfs.list(await allowed('list', dir, 'dir'));
      return entries.filter((e) => isVisiblePath(e.path, ctx.config)).map((e) => ({ name: e.name, type: e.type }));
    },
  };
  return {
    vfs,
    get violation() {
      return violation;
    },
  };
}
