import type { FixtureDefinition } from './types';

export interface BuiltRepo {
  /** The repository root: the working tree, or the bare repository itself. */
  dir: string;
  gitdir: string;
  /** The commit oid at the tip of the definition's branch. */
  head: string;
}

export interface BuildRepoOptions {
  bare?: boolean;
  /** Runs git and returns stdout; must throw on failure. Defaults to a minimal config-free runner. */
  runGit?: (cwd: string, args: string[], input?: Buffer) => string;
}

export declare function buildRepo(definition: FixtureDefinition, targetDir: string, options?: BuildRepoOptions): BuiltRepo;
