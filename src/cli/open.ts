/** Opens the repository named by --repo on the real filesystem with the Node platform. */
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { Repository, type GitFs } from '../git';
import { nodePlatform } from '../git/node/platform';
import type { SessionStore } from '../session';
import type { CommonOptions } from './io';

export async function openRepository(options: CommonOptions): Promise<Repository> {
  return Repository.open({ fs: fs as unknown as GitFs, dir: resolve(options.repo ?? '.'), platform: nodePlatform });
}

/** Loaded here, not at start-up: the session layer builds its zod schemas when it loads. */
export async function openStore(options: CommonOptions): Promise<SessionStore> {
  const { SessionStore } = await import('../session');
  return new SessionStore(await openRepository(options));
}
