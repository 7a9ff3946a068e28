#!/usr/bin/env node
/**
 * One mount, served by this process, for bench/mount-bench.mjs (the bench itself makes blocking
 * calls into the mount, so the mount must live in another process). Uses the built library
 * (dist/index.js) to pass options the CLI does not have: the bypass and kernel-caching levers.
 *
 *   node bench/mount-serve.mjs <gitdir-or-workdir> <session> <dir> '<MountSessionOptions JSON>'
 *
 * Prints "ready <ms since start>" once the directory is mounted; unmounts on SIGTERM and prints
 * "peak-rss-kib <VmHWM>" before it exits.
 */
import { readFileSync } from 'node:fs';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './bench-kit.mjs';

const started = performance.now();
const [repoDir, sessionId, dir, json = '{}'] = process.argv.slice(2);
const forge = await import(join(ROOT, 'dist', 'index.js'));
const repo = await forge.Repository.open({ fs: nodeFs, dir: repoDir, platform: forge.nodePlatform });
const store = new forge.SessionStore(repo);
const session = await store.open(sessionId);
const mount = await forge.mountSession(session, dir, JSON.parse(json));
process.stdout.write(`ready ${(performance.now() - started).toFixed(1)}\n`);
process.once('SIGTERM', async () => {
  await mount.unmount();
  await session.close();
  const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  process.stdout.write(`peak-rss-kib ${hwm}\n`);
  process.exit(0);
});
