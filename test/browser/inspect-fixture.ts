/**
 * The repository the inspector's browser tests look at: `npm run demo`'s (the example-app
 * fixture and the scripted fix-average run, session "demo", two turns), plus a session
 * "conflict" whose README edit collides with a later commit on main and which adds a CRLF file,
 * and the `forge inspect` server on it (the built CLI, a free port).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildRepo } from '../../fixtures-repos/build.mjs';
import { getFixture } from '../../fixtures-repos/index.mjs';
import { forge, FORGE_BIN } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';

export interface InspectRepo {
  dir: string;
  gitdir: string;
}

function ok(run: ReturnType<typeof forge>): ReturnType<typeof forge> {
  if (run.status !== 0) throw new Error(`forge failed (${run.status}): ${run.stderr}`);
  return run;
}

export const README_ON_MAIN = 'A tiny calculator, as main now describes it.';
export const README_IN_SESSION = 'A tiny calculator, as the conflict session describes it.';

export function buildInspectRepo(root: string): InspectRepo {
  const dir = join(root, 'example-app');
  buildRepo(getFixture('example-app'), dir, { bare: false, runGit: (cwd: string, args: string[], input?: Buffer) => git(cwd, args, input ? { input } : {}).stdout });
  ok(forge(['run', '--repo', dir, '--script', resolve('examples/fix-average/script.json'), '--approve', 'all', '--id', 'demo']));

  ok(forge(['session', 'new', '--repo', dir, '--id', 'conflict', '--base', 'main']));
  const readme = git(dir, ['show', 'main:README.md']).stdout;
  const calls = [
    { tool: 'read_file', args: { path: 'README.md' } },
    { tool: 'write_file', args: { path: 'README.md', content: readme.replace('A tiny calculator used by the Forge demo.', README_IN_SESSION) } },
    { tool: 'write_file', args: { path: 'notes/windows.txt', content: 'first line\r\nsecond line\r\n' } },
  ];
  ok(forge(['turn', '--repo', dir, '--session', 'conflict', '--calls', '-', '--message', 'Describe the calculator; add Windows notes'], { input: JSON.stringify(calls) }));

  // main moves on after both sessions started: the README line the conflict session rewrote changes too.
  writeFileSync(join(dir, 'README.md'), readme.replace('A tiny calculator used by the Forge demo.', README_ON_MAIN));
  git(dir, ['commit', '-q', '-am', 'README: a new description']);
  return { dir, gitdir: join(dir, '.git') };
}

export interface RunningInspector {
  /** The URL printed on the terminal, with its secret (`/?token=…`). */
  url: string;
  /** The origin alone (`http://127.0.0.1:PORT/`). */
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `forge inspect` and waits for the URL it prints. */
export async function startInspector(repoDir: string): Promise<RunningInspector> {
  const child = spawn(process.execPath, [FORGE_BIN, 'inspect', '--repo', repoDir, '--port', '0'], { env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /forge inspect: (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`forge inspect exited (${code}) before printing its URL: ${stderr}`)));
  });
  return {
    url,
    origin: new URL('/', url).toString(),
    process: child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
