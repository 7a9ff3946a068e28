/** Opens the repository named by --repo (or the global -C) on the real filesystem with the Node platform. */
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { ForgeError } from '../errors';
import { Repository } from '../git';
import { nodePlatform } from '../git/node/platform';
import type { RedactionOptions, SessionStore } from '../session';
import type { Settings } from './settings';
import { cliGlobals } from './globals';
import { fixedClock, readIdentitySources } from './identity';
import type { CommonOptions } from './io';
import { markPhase } from './phase-timing';

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
  markPhase('opened');
  return lastOpened;
}

/** Loaded here, not at start-up: the session layer builds its zod schemas when it loads. */
export async function openStore(options: CommonOptions): Promise<SessionStore> {
  const [{ SessionStore }, { SecretlintScanner }, { loadSettings }] = await Promise.all([import('../session'), import('../session/node/secretlint-scanner'), import('./settings')]);
  const repo = await openRepository(options);
  return new SessionStore(repo, undefined, { redaction: redactionOptions(loadSettings(repo.workdir, {}).redact, [new SecretlintScanner()]) });
}

/** .forge/config.json's `redact` (git config's forge.redact and forge.redactPattern come on top, in the store). */
export function redactionOptions(redact: Settings['redact'], scanners: RedactionOptions['scanners']): RedactionOptions {
  const settings = redact === undefined ? {} : typeof redact === 'boolean' ? { enabled: redact } : { ...(redact.enabled !== undefined ? { enabled: redact.enabled } : {}), ...(redact.patterns ? { patterns: redact.patterns } : {}) };
  return { scanners, settings };
}
