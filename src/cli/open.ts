/** Opens the repository named by --repo (or the global -C) on the real filesystem with the Node platform. */
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { ForgeError } from '../errors';
import { Repository } from '../git';
import { nodePlatform } from '../git/node/platform';
import type { SessionStore } from '../session';
import { cliGlobals } from './globals';
import { fixedClock, readIdentitySources } from './identity';
import type { CommonOptions } from './io';

let lastOpened: Repository | undefined;

/** The repository the command opened, if it got that far (to suggest session ids on failure). */
export function lastOpenedRepository(): Repository | undefined {
  return lastOpened;
}

/** The directory --repo or -C names, which must be one (as `git -C FILE` fails). */
export function repoDir(options: CommonOptions): string {
  const given = options.repo ?? cliGlobals.repo;
  const dir = resolve(given ?? '.');
  if (given === undefined) return dir;
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) throw new ForgeError('INVALID_ARGUMENT', `Cannot use repository ${given}: no such directory.`, { hint: '--repo / -C take the directory of a git repository.' });
  if (!stat.isDirectory()) throw new ForgeError('INVALID_ARGUMENT', `Cannot use repository ${given}: it is a file, not a directory.`, { hint: '--repo / -C take the directory of a git repository.' });
  return dir;
}

export async function openRepository(options: CommonOptions): Promise<Repository> {
  const identity = readIdentitySources();
  const clock = fixedClock(identity);
  lastOpened = await Repository.open({ fs, dir: repoDir(options), platform: nodePlatform, identity, ...(clock ? { clock } : {}) });
  return lastOpened;
}

/** Loaded here, not at start-up: the session layer builds its zod schemas when it loads. */
export async function openStore(options: CommonOptions): Promise<SessionStore> {
  const { SessionStore } = await import('../session');
  return new SessionStore(await openRepository(options));
}
