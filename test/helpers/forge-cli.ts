/** Runs the built `forge` executable (dist/cli.cjs, package.json's bin, built by test/global-setup.ts). */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { hermeticGitEnv } from './git-cli';

export const FORGE_BIN = resolve('dist/cli.cjs');

export interface ForgeRun {
  status: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON document (throws if it is not exactly one). */
  json<T = any>(): T;
}

/** `env`: variables applied over the hermetic ones (an identity, NO_COLOR, a HOME with its own config). */
export function forge(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): ForgeRun {
  const result = spawnSync(process.execPath, [FORGE_BIN, ...args], {
    input: options.input,
    cwd: options.cwd,
    encoding: 'utf8',
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', ...options.env },
  });
  return {
    status: result.status ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    json: () => JSON.parse(result.stdout),
  };
}
