/**
 * The comforts: shell completion, colour that honours NO_COLOR and --no-color, --quiet, times
 * in forge log, and `.forge/config.json` with its precedence (flags > environment > repository
 * config > user config > defaults).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { makeRepo, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const ESC = '\x1b[';

let repo: RepoHandle;
beforeAll(() => {
  repo = makeRepo({ files: { 'a.txt': 'a\n', '.env': 'SECRET=1\n', 'notes/private.md': 'p\n' } });
  expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's1']).status).toBe(0);
  const turn = forge(['turn', '--repo', repo.dir, '--session', 's1', '--calls', '-'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }]) });
  expect(turn.status).toBe(0);
});

describe('forge completion', () => {
  /** What bash completes for the words typed so far (the last one being completed). */
  function complete(words: string[]): string[] {
    const bin = makeTempDir('completion-bin');
    // `forge` on PATH for the session-id completion, which runs `forge session list`.
    writeFileSync(join(bin, 'forge'), `#!/bin/sh\nexec "${process.execPath}" "${FORGE_BIN}" "$@"\n`, { mode: 0o755 });
    const script = `source <("${process.execPath}" "${FORGE_BIN}" completion bash)
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_forge; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = spawnSync('bash', ['-c', script], { cwd: repo.dir, encoding: 'utf8', env: { ...hermeticGitEnv(), PATH: `${bin}:${process.env.PATH}` } });
    expect(out.stderr).toBe('');
    return out.stdout.split('\n').filter(Boolean).sort();
  }

  it('bash completes commands, subcommands, options and session ids', () => {
    expect(complete(['forge', 'tu'])).toEqual(['turn']);
    expect(complete(['forge', 'session', ''])).toEqual(['discard', 'list', 'new', 'pull']);
    expect(complete(['forge', 'turn', '--se'])).toEqual(['--session']);
    expect(complete(['forge', '-C', '.', 'log', ''])).toEqual(['s1']);
    expect(complete(['forge', 'turn', '--session', ''])).toEqual(['s1']);
    expect(complete(['forge', 'session', 'new', '--m'])).toEqual(['--mode']);
  });

  it('zsh and fish scripts name every command', () => {
    const commands = ['session', 'turn', 'run', 'undo', 'log', 'show', 'resume', 'merge', 'rebase', 'diff', 'cat', 'ls', 'materialize', 'tools', 'mcp'];
    for (const shell of ['zsh', 'fish']) {
      const run = forge(['completion', shell]);
      expect(run.status).toBe(0);
      for (const command of commands) expect(run.stdout).toMatch(new RegExp(shell === 'fish' ? `-a ${command}\\n` : `\\b${command}\\)`));
    }
  });
});

describe('colour', () => {
  it('off when stdout is not a terminal; FORCE_COLOR turns it on; NO_COLOR and --no-color win', () => {
    const log = (env: Record<string, string>, args: string[] = []) => forge([...args, 'log', 's1', '--repo', repo.dir], { env }).stdout;
    expect(log({})).not.toContain(ESC);
    expect(log({ FORCE_COLOR: '1' })).toContain(`${ESC}33m`);
    expect(log({ FORCE_COLOR: '1', NO_COLOR: '1' })).not.toContain(ESC);
    expect(log({ FORCE_COLOR: '1' }, ['--no-color'])).not.toContain(ESC);
    const show = forge(['show', 'forge/session/s1', '--repo', repo.dir], { env: { FORCE_COLOR: '1' } }).stdout;
    expect(show).toContain(`${ESC}32m+b${ESC}0m`);
  });
});

describe('--quiet', () => {
  it('prints only what the command is for', () => {
    expect(forge(['-q', 'session', 'new', '--repo', repo.dir, '--id', 'quiet']).stdout).toBe('quiet\n');
    const turn = forge(['--quiet', 'turn', '--repo', repo.dir, '--session', 'quiet', '--calls', '-'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'q.txt', content: 'q\n' } }]) });
    expect([turn.status, turn.stdout, turn.stderr]).toEqual([0, '', '']);
    expect(git(repo.dir, ['show', 'forge/session/quiet:q.txt']).stdout).toBe('q\n');
    expect(forge(['-q', 'cat', 'q.txt', '--session', 'quiet', '--repo', repo.dir]).stdout).toBe('q\n');
  });
});

describe('times', () => {
  it('forge log and forge session list write times one way, chosen with --date', () => {
    const iso = forge(['log', 's1', '--repo', repo.dir]).stdout;
    expect(iso).toMatch(/^turn 0 {2}[0-9a-f]{12} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}/m);
    const list = forge(['session', 'list', '--repo', repo.dir]).stdout;
    expect(list).toMatch(/^s1 {2}turn 1 {2}[0-9a-f]{12} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    expect(forge(['log', 's1', '--date', 'relative', '--repo', repo.dir]).stdout).toMatch(/^turn 1 {2}[0-9a-f]{12} {2}(just now|\d+ \w+(, \d+ \w+)? ago) {2}/m); // the tests' GIT_COMMITTER_DATE: 2024-01-01
    expect(forge(['log', 's1', '--date', 'local', '--repo', repo.dir], { env: { TZ: 'Asia/Kolkata' } }).stdout).toMatch(/^turn 1 {2}[0-9a-f]{12} {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0530 {2}/m);
  });
});

describe('.forge/config.json', () => {
  let dir: RepoHandle;
  let userConfigHome: string;
  const script = (root: string) => {
    const file = join(root, 'write.json');
    writeFileSync(file, JSON.stringify({ turns: [{ user: 'w', replies: [{ tool_calls: [{ tool: 'write_file', args: { path: 'w.txt', content: 'w\n' } }] }, { text: 'ok' }] }] }));
    return file;
  };
  beforeAll(() => {
    dir = makeRepo({ files: { 'a.txt': 'a\n' } });
    userConfigHome = makeTempDir('forge-user-config');
    mkdirSync(join(userConfigHome, 'forge'), { recursive: true });
  });
  const writeRepoConfig = (config: object) => {
    mkdirSync(join(dir.dir, '.forge'), { recursive: true });
    writeFileSync(join(dir.dir, '.forge', 'config.json'), JSON.stringify(config));
  };
  const writeUserConfig = (config: object) => writeFileSync(join(userConfigHome, 'forge', 'config.json'), JSON.stringify(config));
  const modeOf = (id: string) => JSON.parse(git(dir.dir, ['show', `forge/session/${id}:.forge/sessions/${id}.json`]).stdout).mode;
  const newSession = (id: string, args: string[] = [], env: Record<string, string> = {}) => {
    const run = forge(['session', 'new', '--repo', dir.dir, '--id', id, ...args], { env: { XDG_CONFIG_HOME: userConfigHome, ...env } });
    expect(run.stderr).toBe('');
    return modeOf(id);
  };

  it('mode: flags > FORGE_MODE > repository config > user config > unrestricted', () => {
    expect(newSession('d0')).toBe('unrestricted');
    writeUserConfig({ mode: 'restricted' });
    expect(newSession('d1')).toBe('restricted');
    writeUserConfig({ mode: 'restricted' });
    writeRepoConfig({ mode: 'unrestricted' });
    expect(newSession('d2')).toBe('unrestricted');
    expect(newSession('d3', [], { FORGE_MODE: 'restricted' })).toBe('restricted');
    expect(newSession('d4', ['--mode', 'unrestricted'], { FORGE_MODE: 'restricted' })).toBe('unrestricted');
  });

  it('approve: the repository config gives forge run its approval policy (a flag overrides it)', () => {
    writeUserConfig({});
    writeRepoConfig({ approve: 'write_file' });
    const file = script(makeTempDir('cfg-script'));
    const approved = forge(['run', '--repo', dir.dir, '--script', file, '--id', 'r1'], { env: { XDG_CONFIG_HOME: userConfigHome } });
    expect(approved.status).toBe(0);
    expect(git(dir.dir, ['show', 'forge/session/r1:w.txt']).stdout).toBe('w\n');
    const denied = forge(['run', '--repo', dir.dir, '--script', file, '--id', 'r2', '--approve', 'none'], { env: { XDG_CONFIG_HOME: userConfigHome } });
    expect(denied.status).toBe(5);
  });

  it('denied_paths replaces the denied patterns of the tools', () => {
    writeRepoConfig({ denied_paths: ['secret/**'] });
    expect(newSession('p1')).toBe('unrestricted');
    const run = forge(['turn', '--repo', dir.dir, '--session', 'p1', '--calls', '-', '--json'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'secret/k.txt', content: 'k' } }]), env: { XDG_CONFIG_HOME: userConfigHome } });
    expect(run.json().results[0].error.code).toBe('PATH_DENIED');
  });

  it('a value the schema refuses is a usage error naming the file and the key', () => {
    writeRepoConfig({ mode: 'sideways' });
    const run = forge(['session', 'new', '--repo', dir.dir, '--id', 'bad'], { env: { XDG_CONFIG_HOME: userConfigHome } });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^forge: error INVALID_ARGUMENT: \.forge\/config\.json: mode: .+\n$/);
    writeRepoConfig({ colour: 'blue' });
    expect(forge(['session', 'new', '--repo', dir.dir, '--id', 'bad'], { env: { XDG_CONFIG_HOME: userConfigHome } }).stderr).toMatch(/^forge: error INVALID_ARGUMENT: \.forge\/config\.json: .*colour/);
  });
});
