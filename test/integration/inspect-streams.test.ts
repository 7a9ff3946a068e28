/**
 * What the inspector keeps and streams for its page, against reading everything afresh: the
 * sessions list's summaries (read from the state's summary fields, kept by head commit), the
 * pending counts (only journals present are read), the streamed timeline (`/sessions/:id/turns`:
 * a header line, then a line per turn) against the JSON timeline, and both after the session
 * moves (a new turn, an undo, a resume, a rebase rewriting its commits). A state that does not
 * read gives the row the error `forge show` would give.
 */
import { resolve } from 'node:path';
import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { startInspectServer, type InspectServer } from '../../src/inspect/node/server';
import { readStateAt, SessionStore } from '../../src/session';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { loginToInspector, type InspectClient } from '../helpers/inspect-client';
import { makeRepo, type RepoHandle } from '../helpers/repos';

let repo: RepoHandle;
let opened: Repository;
let server: InspectServer;
let client: InspectClient;

const rev = (ref: string) => git(repo.dir, ['rev-parse', ref]).stdout.trim();

function turn(id: string, files: Record<string, string>, message = 'a turn'): string {
  const calls = Object.entries(files).flatMap(([path, content]) => [
    { tool: 'read_file', args: { path } },
    { tool: 'write_file', args: { path, content } },
  ]);
  const run = forge(['turn', '--repo', repo.dir, '--session', id, '--calls', '-', '--message', message, '--json'], { input: JSON.stringify(calls) });
  expect(run.status, run.stderr).toBe(0);
  return run.json().commit as string;
}

async function lines(path: string): Promise<{ status: number; type: string | null; rows: any[] }> {
  const res = await client.fetch(`/api${path}`);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), rows: text.trim() === '' ? [] : text.trim().split('\n').map((l) => JSON.parse(l)) };
}

async function json(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  return client.api(path, init);
}

/** A row as reading the whole state (as `forge show` does) makes it. */
async function expectedRow(id: string) {
  const head = rev(`forge/session/${id}`);
  const state = await readStateAt(opened, head, id);
  return {
    id,
    head,
    turns: state.turn,
    base: state.base,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    title: state.messages.find((m) => m.role === 'user')?.content.slice(0, 200) ?? '',
    ...(state.parent ? { parent: state.parent } : {}),
  };
}

/** The streamed timeline put back together, in the shape of the JSON one. */
async function streamedTimeline(id: string) {
  const { status, type, rows } = await lines(`/sessions/${id}/turns`);
  expect(status).toBe(200);
  expect(type).toContain('application/x-ndjson');
  const [first, ...rest] = rows;
  const { commits, parent, ...header } = first.timeline;
  const turns = rest.map((r) => r.turn);
  expect(commits).toEqual(turns.map((t: { turn: number; commit: string }) => ({ turn: t.turn, commit: t.commit })));
  return { ...header, turns, ...(parent ? { parent } : {}) };
}

beforeEach(async () => {
  repo = makeRepo({ files: { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' } });
  for (const id of ['s1', 's2']) expect(forge(['session', 'new', '--repo', repo.dir, '--id', id, '--base', 'main']).status).toBe(0);
  turn('s1', { 'a.txt': 'one\nTWO\nthree\n' }, 'first');
  turn('s2', { 'b.txt': 'B\n' }, 'other');
  opened = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
  server = await startInspectServer({ repo: opened, assetsDir: resolve('dist/inspect') });
  client = await loginToInspector(server.url);
});

afterEach(async () => {
  await server.close();
  opened.close();
});

describe('inspector streams and what it keeps', () => {
  it('lists the summaries a full read of each state gives, and follows a session that moves', async () => {
    const rows = async () => (await lines('/sessions')).rows;
    for (let pass = 0; pass < 2; pass++) {
      // The second pass is answered from what the first kept: the same rows.
      expect(await rows()).toEqual([expect.objectContaining(await expectedRow('s1')), expect.objectContaining(await expectedRow('s2'))]);
    }
    turn('s1', { 'b.txt': 'bee\n' }, 'second');
    const resumed = await json('/resume', { method: 'POST', body: JSON.stringify({ from: rev('forge/session/s1~1'), id: 's3' }) });
    expect(resumed.status).toBe(200);
    const after = await rows();
    expect(after.map((r: { id: string }) => r.id)).toEqual(['s1', 's2', 's3']);
    expect(after[0]).toMatchObject({ ...(await expectedRow('s1')), turns: 2 });
    expect(after[2]).toMatchObject(await expectedRow('s3'));
    expect(after[2].parent).toMatchObject({ session: 's1' });
  });

  it('counts pending changes from the journals present, and none for the others', async () => {
    const other = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
    await (await new SessionStore(other).open('s2')).vfs.writeFile('a.txt', new TextEncoder().encode('pending\n'));
    other.close();
    const { rows } = await lines('/sessions');
    expect(rows.map((r: { id: string; pending: number }) => [r.id, r.pending])).toEqual([
      ['s1', 0],
      ['s2', 1],
    ]);
  });

  it('gives a row the error of a state that does not read, as forge show would', async () => {
    // A commit on a session branch whose state file is not a state, and one without any.
    for (const [id, content] of [
      ['broken', '{"version":1,"turn":"three"}\n'],
      ['nostate', undefined],
    ] as const) {
      git(repo.dir, ['checkout', '-q', '-b', `forge/session/${id}`, 'main']);
      if (content !== undefined) {
        fs.mkdirSync(`${repo.dir}/.forge/sessions`, { recursive: true });
        fs.writeFileSync(`${repo.dir}/.forge/sessions/${id}.json`, content);
        git(repo.dir, ['add', '.forge']);
      }
      git(repo.dir, ['commit', '-q', '--allow-empty', '-m', `${id} state`]);
      git(repo.dir, ['checkout', '-q', 'main']);
    }
    const rows = Object.fromEntries((await lines('/sessions')).rows.map((r: { id: string; error?: string }) => [r.id, r]));
    for (const id of ['broken', 'nostate']) {
      const error = await readStateAt(opened, rev(`forge/session/${id}`), id).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(error).toBeDefined();
      expect(rows[id]).toMatchObject({ id, turns: 0, error });
    }
    expect(rows.s1.error).toBeUndefined();
  });

  it('streams the timeline as the JSON timeline has it, before and after the session moves', async () => {
    const same = async (id: string) => {
      const whole = (await json(`/sessions/${id}/timeline`)).body;
      expect(await streamedTimeline(id)).toEqual(whole);
      return whole;
    };
    expect((await same('s1')).turns.map((t: { turn: number }) => t.turn)).toEqual([0, 1]);
    turn('s1', { 'b.txt': 'bee\n' }, 'second');
    const moved = await same('s1');
    expect(moved.turns.map((t: { turn: number; summary: string }) => [t.turn, t.summary])).toEqual([
      [0, expect.any(String)],
      [1, 'first'],
      [2, 'second'],
    ]);
    expect(moved.turns[2].files).toEqual([{ path: 'b.txt', kind: 'modified', added: 1, removed: 1, binary: false }]);
    expect(moved.undo).toMatchObject({ turn: 2 });
    // A rebase rewrites every commit of the session: nothing kept applies to the new ones.
    git(repo.dir, ['commit', '-q', '--allow-empty', '-m', 'main moves']);
    expect((await json('/sessions/s1/rebase', { method: 'POST', body: JSON.stringify({ onto: 'main', head: rev('forge/session/s1') }) })).body).toMatchObject({ status: 'rebased' });
    const rebased = await same('s1');
    expect(rebased.head).toBe(rev('forge/session/s1'));
    expect(rebased.turns.map((t: { commit: string }) => t.commit)).toEqual([rev('forge/session/s1~2'), rev('forge/session/s1~1'), rev('forge/session/s1')]);
    expect(rebased.turns.map((t: { files: unknown }) => t.files)).toEqual(moved.turns.map((t: { files: unknown }) => t.files));
  });

  it('refuses a streamed timeline it cannot open with a plain error and its status', async () => {
    expect(await json('/sessions/nope/turns')).toMatchObject({ status: 404, body: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect(await json('/sessions/..%2F..%2Fx/turns')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
  });
});
