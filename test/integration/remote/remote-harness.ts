/**
 * What the remote tests share: a bare server repository behind `git http-backend` (push needs
 * basic auth as alice), clones made with the git CLI over the file system (git() blocks, and the
 * server runs in this process), and `forge` run asynchronously so the server can answer it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FORGE_BIN } from '../../helpers/forge-cli';
import { git, hermeticGitEnv } from '../../helpers/git-cli';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/http-backend';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';

export const USERS = { alice: 's3cret-pass' };

export interface World {
  root: string;
  /** The server's bare repository. */
  serverRepo: string;
  server: GitHttpServer;
  /** A clone whose origin is the server over HTTP with alice's credentials in the URL. */
  clone(name: string, options?: { user?: string | null; bare?: boolean }): string;
  restart(): Promise<void>;
}

export async function startWorld(files: Record<string, string> = { 'README.md': '# app\n', 'src/app.js': 'export const answer = 42;\n' }): Promise<World> {
  const root = makeTempDir('remote');
  const serverRepo = join(root, 'server.git');
  git(root, ['init', '-q', '--bare', serverRepo]);
  git(serverRepo, ['config', 'http.receivepack', 'true']);
  const seed = makeRepo({ files });
  git(seed.dir, ['push', '-q', serverRepo, 'HEAD:refs/heads/main']);
  git(serverRepo, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  const world: World = {
    root,
    serverRepo,
    server: await startGitHttpServer({ root, users: USERS }),
    clone(name, options = {}) {
      const dir = join(root, name);
      git(root, ['clone', '-q', '--single-branch', '--branch', 'main', ...(options.bare ? ['--bare'] : []), serverRepo, dir]);
      const user = options.user === undefined ? 'alice' : options.user;
      git(dir, ['remote', 'set-url', 'origin', world.server.url('server.git', user ?? undefined)]);
      return dir;
    },
    async restart() {
      await world.server.close().catch(() => {});
      world.server = await startGitHttpServer({ root, users: USERS });
    },
  };
  return world;
}

export interface ForgeResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function forgeAsync(args: string[], env: Record<string, string> = {}): Promise<ForgeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FORGE_BIN, ...args], { env: { ...hermeticGitEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** forge, expecting success; throws with its output otherwise. */
export async function forgeOk(args: string[], env: Record<string, string> = {}): Promise<ForgeResult> {
  const result = await forgeAsync(args, env);
  if (result.status !== 0) throw new Error(`forge ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`);
  return result;
}

/** A script of turns, each writing one file. */
export function writeScript(dir: string, name: string, turns: Array<{ user: string; path: string; content: string }>): string {
  const file = join(makeTempDir('script'), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      turns: turns.map((t) => ({ user: t.user, replies: [{ tool_calls: [{ tool: 'write_file', args: { path: t.path, content: t.content } }] }, { text: 'done' }] })),
    }),
  );
  void dir;
  return file;
}

export function rev(repo: string, name: string): string | null {
  const result = git(repo, ['rev-parse', '-q', '--verify', name.includes('^{') ? name : `${name}^{commit}`], { allowFail: true });
  return result.status === 0 ? result.stdout.trim() : null;
}
