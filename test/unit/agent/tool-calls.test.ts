/**
 * SessionToolRunner's records (issue "Safe among others", 7): a call's file changes and its
 * record reach the journal as ONE line, and what the state keeps of long arguments and outputs
 * is bounded, so the state file and a long-running server's memory do not grow with every byte
 * ever written.
 */
import { describe, expect, it } from 'vitest';
import { boundForRecord, RECORDED_STRING_LIMIT, SessionToolRunner } from '../../../src/agent/tool-calls';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { readStateAt, SessionStore, sessionStatePath } from '../../../src/session';
import { encodeState } from '../../../src/session';
import { sessionTimeline } from '../../../src/inspect/timeline';
import { CommitVfs } from '../../../src/vfs';
import { allowAll } from '../../../src/tools';
import { parseJsonBytes } from '../../../src/tools/json-bytes';
import { Utf8Text } from '../../../src/tools/utf8-text';
import { makeMemRepo } from '../../helpers/memfs-repo';

async function setup() {
  const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
  const repo = await Repository.open({ fs: mem.fs as unknown as GitFs, dir: mem.dir, platform: nodePlatform });
  const session = await new SessionStore(repo).create({ id: 'tc' });
  const journal = () => repo.fs.promises.readFile(`${repo.commonDir}/forge/pending/tc.jsonl`, 'utf8');
  return { repo, session, runner: new SessionToolRunner(session, { approval: allowAll }), journal };
}

describe('SessionToolRunner records', () => {
  it('T-12.7: journals a call\'s edit and its record (call, read hash, undo entry) as one line', async () => {
    const { runner, journal } = await setup();
    await runner.call({ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } });
    await runner.call({ tool: 'write_file', args: { path: 'c.txt', content: 'c\n' } });
    const lines = (await journal()).trimEnd().split('\n').map((l) => JSON.parse(l) as { c?: Array<{ path: string }>; state?: { delta: { toolCalls?: Array<{ tool: string }> } } });
    const last = lines.at(-1)!;
    expect(last.c?.map((c) => c.path)).toEqual(['c.txt']);
    expect(last.state?.delta.toolCalls?.map((c) => c.tool)).toEqual(['write_file']);
  });

  it('T-12.7: keeps long arguments and outputs in the state bounded; the file itself is complete', async () => {
    const { runner, session } = await setup();
    const big = 'x'.repeat(200_000);
    for (let i = 0; i < 20; i++) await runner.call({ tool: 'write_file', args: { path: `big-${i}.txt`, content: big + i } });
    await runner.call({ tool: 'read_file', args: { path: 'big-3.txt' } });
    const stateBytes = encodeState(session.state).length;
    expect(stateBytes).toBeLessThan(30 * 2 * RECORDED_STRING_LIMIT);
    expect(new TextDecoder().decode(await session.vfs.readFile('big-3.txt'))).toBe(big + 3);
    const turn = await session.commitTurn();
    expect(turn.changes).toHaveLength(20);
  });

  it('T-12.7: a turn commits its own calls only: the state file and memory stay O(turn) however many turns came before, and every turn\'s calls stay readable', async () => {
    const { repo, session, runner } = await setup();
    const stateSizeAtHead = async () => {
      const head = session.head;
      const view = new CommitVfs(repo, head, (await repo.readCommit(head)).tree);
      return (await view.readFile(sessionStatePath('tc'))).length;
    };
    const sizes: number[] = [];
    const turnCommits: string[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      for (let i = 0; i < 5; i++) await runner.call({ tool: 'write_file', args: { path: `f${i}.txt`, content: `${turn}.${i}\n` } });
      turnCommits.push((await session.commitTurn()).commit);
      sizes.push(await stateSizeAtHead());
      // In memory: the calls of the turn just committed, not the session's.
      expect(session.state.toolCalls.map((c) => c.turn)).toEqual([turn, turn, turn, turn, turn]);
    }
    // The same five files each turn (read hashes do not grow): 200 calls' records would be ~40x the first.
    expect(Math.max(...sizes)).toBeLessThan(sizes[1]! * 1.1);
    // Turn 7's calls are in turn 7's commit; the timeline shows each turn its own.
    const atSeven = await readStateAt(repo, turnCommits[6]!, 'tc');
    expect(atSeven.toolCalls.map((c) => (c.args as { content: string }).content)).toEqual([0, 1, 2, 3, 4].map((i) => `7.${i}\n`));
    const timeline = await sessionTimeline(repo, 'tc');
    expect(timeline.turns.map((t) => t.toolCalls.length)).toEqual([0, ...Array(40).fill(5)]);
    expect(timeline.turns[40]!.toolCalls.every((c) => c.turn === 40)).toBe(true);
    // A reopened session resumes where it was and goes on.
    const again = await new SessionStore(repo).open('tc');
    expect(again.state.toolCalls).toEqual(session.state.toolCalls);
  });

  it('T-12.7: write_file takes a huge content as bytes (a calls file\'s string kept as Utf8Text): written without a copy, recorded as the string would be', async () => {
    const text = 'é line\n'.repeat(300_000);
    // A view inside a larger buffer, as parseJsonBytes leaves it inside the calls file.
    const file = new TextEncoder().encode(`[{"content": "${JSON.stringify(text).slice(1, -1)}"}]`);
    const content = parseJsonBytes(file, { largeStringBytes: 1 << 20 }) as Array<{ content: Utf8Text }>;
    const bytes = content[0]!.content;
    expect(bytes).toBeInstanceOf(Utf8Text);
    const asBytes = await setup();
    const asString = await setup();
    const viaBytes = await asBytes.runner.call({ tool: 'write_file', args: { path: 'big.txt', content: bytes } });
    const viaString = await asString.runner.call({ tool: 'write_file', args: { path: 'big.txt', content: text } });
    expect(viaBytes).toEqual(viaString);
    const entry = await asBytes.session.vfs.stat('big.txt');
    // The view itself is what the repository keeps (a copy would hold the content twice).
    expect(await asBytes.repo.readBlob(entry!.oid)).toBe(bytes.bytes);
    expect(new TextDecoder().decode(await asBytes.session.vfs.readFile('big.txt'))).toBe(text);
    expect(asBytes.session.state.toolCalls).toEqual(asString.session.state.toolCalls.map((c) => ({ ...c, at: asBytes.session.state.toolCalls[0]!.at })));
  });

  it('T-12.7: overwriting a large file checks it by the hash remembered for its blob (on disk, across processes): it is not read, and a stale one is still refused', async () => {
    const { repo, session, runner } = await setup();
    const big = 'line of a large file\n'.repeat(60_000);
    expect((await runner.call({ tool: 'write_file', args: { path: 'big.txt', content: big } })).ok).toBe(true);
    await session.commitTurn();
    const oid = (await session.vfs.stat('big.txt'))!.oid!;
    // A new process: only the repository's files are shared.
    const again = await Repository.open({ fs: repo.fs, dir: repo.workdir ?? repo.gitdir, platform: nodePlatform });
    expect(await again.blobSha256(oid)).toBe(await repo.sha256Hex(new TextEncoder().encode(big)));
    const reopened = await new SessionStore(again).open('tc');
    const reads: string[] = [];
    const readFile = reopened.vfs.readFile.bind(reopened.vfs);
    reopened.vfs.readFile = async (path: string) => (reads.push(path), readFile(path));
    const rerun = new SessionToolRunner(reopened, { approval: allowAll });
    const replaced = await rerun.call({ tool: 'write_file', args: { path: 'big.txt', content: 'small now\n' } });
    expect(replaced.ok).toBe(true);
    expect(reads).toEqual([]);
    // Another writer changed it since: the hash by oid says so, as reading it would.
    await rerun.call({ tool: 'write_file', args: { path: 'big2.txt', content: big + 'x' } });
    reopened.state.readHashes['big2.txt'] = 'f'.repeat(64);
    const stale = await rerun.call({ tool: 'write_file', args: { path: 'big2.txt', content: 'y' } });
    expect(stale.ok ? 'ok' : stale.error.code).toBe('STALE_FILE');
  });

  it('boundForRecord cuts long strings anywhere in a JSON value and keeps the rest as it is', () => {
    const long = 'y'.repeat(RECORDED_STRING_LIMIT + 1);
    const bounded = boundForRecord({ path: 'p', content: long, list: [long, 1, null, true], nested: { short: 'ok' } }) as Record<string, unknown>;
    expect(bounded.path).toBe('p');
    expect(bounded.content).toMatch(/^y{512}… \[3585 more characters not kept in the session record\]$/);
    expect((bounded.list as unknown[]).slice(1)).toEqual([1, null, true]);
    expect(bounded.nested).toEqual({ short: 'ok' });
  });

  it('T-12.3: a call whose journal write fails (a full disk) is undone in memory too: it is never committed later, and the session goes on', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const fs = mem.fs as unknown as GitFs & { appendFileSync: (path: string, data: unknown) => void };
    let full = false;
    const append = fs.appendFileSync.bind(fs);
    fs.appendFileSync = (path, data) => {
      if (full && String(path).endsWith('.jsonl')) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${String(path)}'`), { code: 'ENOSPC' });
      append(path, data);
    };
    const repo = await Repository.open({ fs, dir: mem.dir, platform: nodePlatform });
    const session = await new SessionStore(repo).create({ id: 'full' });
    const runner = new SessionToolRunner(session, { approval: allowAll });
    expect((await runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'k\n' } })).ok).toBe(true);
    full = true;
    const failed = await runner.call({ tool: 'write_file', args: { path: 'lost.txt', content: 'l\n' } }).then(
      (result) => result.ok,
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(failed).toBe('DISK_FULL');
    full = false;
    expect(await session.vfs.exists('lost.txt')).toBe(false);
    expect((await runner.call({ tool: 'write_file', args: { path: 'after.txt', content: 'x\n' } })).ok).toBe(true);
    const turn = await session.commitTurn();
    expect(turn.changes.map((c) => c.path).sort()).toEqual(['after.txt', 'kept.txt']);
    expect(session.state.toolCalls.filter((c) => c.ok).map((c) => (c.args as { path: string }).path)).toEqual(['kept.txt', 'after.txt']);
  });
});
