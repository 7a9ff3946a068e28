/**
 * The FUSE binding, behind the smallest interface the mount needs. fuse-native is an optional
 * dependency loaded here, by `forge mount` alone, through a dynamic import: the engine core and
 * the browser entry never load it.
 */
import { createRequire } from 'node:module';
import { ForgeError } from '../../errors';

export type FuseCallback = (...args: unknown[]) => void;
export type FuseOps = Record<string, (...args: never[]) => void>;

export interface FuseInstance {
  mount(cb: (error: Error | null) => void): void;
  unmount(cb: (error: Error | null) => void): void;
}

export interface FuseModule {
  new (mountPoint: string, ops: FuseOps, options: Record<string, unknown>): FuseInstance;
  unmount(mountPoint: string, cb: (error: Error | null) => void): void;
  /** Negative errno numbers of this platform, by name (Fuse.ENOENT === -2 on Linux). */
  readonly [errno: string]: unknown;
}

let loaded: FuseModule | undefined;

export function loadFuse(): FuseModule {
  if (loaded) return loaded;
  let mod: { default?: FuseModule } & FuseModule;
  try {
    // A CommonJS package with a native addon, required: the ES module library (and the sources)
    // resolve it from their own location; the CLI bundle (CommonJS, run from a code-cached script
    // that has no dynamic-import callback, and where import.meta is empty) keeps this require()
    // of the external package. Not `typeof require` first: the ES module bundle's require is a
    // shim that throws ("Dynamic require of fuse-native is not supported").
    const url = (import.meta as { url?: string }).url;
    mod = (url ? createRequire(url)('fuse-native') : require('fuse-native')) as typeof mod;
  } catch (error) {
    throw new ForgeError('MOUNT_UNAVAILABLE', `The FUSE binding could not be loaded (${(error as Error).message.split('\n')[0]}).`, {
      hint: 'Install the optional dependency (npm install fuse-native) and the system library (Debian/Ubuntu: apt-get install fuse libfuse2; macOS: macFUSE).',
    });
  }
  loaded = mod.default ?? mod;
  return loaded;
}

/**
 * The binding with more libfuse options than its constructor knows: it builds the `-o` string
 * from a fixed list, which lacks `atomic_o_trunc` (O_TRUNC passed to open instead of a separate
 * truncate first, so an overwrite is ONE edit, not an empty file and then the new bytes).
 */
export function withFuseOptions(Fuse: FuseModule, extra: readonly string[]): FuseModule {
  const Base = Fuse as unknown as new (...args: unknown[]) => { _fuseOptions(): string };
  class WithOptions extends Base {
    override _fuseOptions(): string {
      const base = super._fuseOptions();
      return base ? `${base},${extra.join(',')}` : `-o${extra.join(',')}`;
    }
  }
  return WithOptions as unknown as FuseModule;
}
