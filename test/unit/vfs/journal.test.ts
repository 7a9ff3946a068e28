import { createFsFromVolume, Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { asGitFs, type GitFs } from '../../../src/git';
import { FsJournal } from '../../../src/vfs';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const PATH = '/g/forge/pending/s1.jsonl';

function setup() {
  const fs = asGitFs(createFsFromVolume(new Volume()));
  return { fs, journal: new FsJournal(fs, '/g', 's1'), read: () => fs.promises.readFile(PATH, 'utf8') };
}

describe('FsJournal', () => {
  it('has nothing to load before anything was written', async () => {
    expect(await setup().journal.load()).toBeNull();
  });

  it('keeps a header line and one JSON line per change under <gitdir>/forge/pending/<key>.jsonl', async () => {
    const { journal, read } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    await journal.append({ path: 'x', oid: B, mode: '100755' });
    await journal.append({ path: 'gone', deleted: true });
    const lines = (await read()).trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([{ v: 1, base: A, owner: 'o1' }, { path: 'x', oid: B, mode: '100755' }, { path: 'gone', deleted: true }]);
  });

  it('replays writes, deletions, reverts and every state record in order', async () => {
    const { journal } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map([['kept', { oid: A, mode: '100644' }]]), states: [{ n: 0 }] });
    await journal.append({ path: 'x', oid: A, mode: '100644' });
    await journal.append({ path: 'x', oid: B, mode: '120000' });
    await journal.append({ path: 'y', deleted: true });
    await journal.append({ path: 'z', oid: A, mode: '100644' });
    await journal.append({ path: 'z', reverted: true });
    await journal.appendState({ n: 1 });
    await journal.appendState({ n: 2, messages: ['hi'] });
    const loaded = await journal.load();
    expect(loaded).toEqual({
      base: A,
      owner: 'o1',
      changes: new Map([
        ['kept', { oid: A, mode: '100644' }],
        ['x', { oid: B, mode: '120000' }],
        ['y', null],
      ]),
      states: [{ n: 0 }, { n: 1 }, { n: 2, messages: ['hi'] }],
    });
  });

  it('ignores a torn last line (a crash in the middle of an append)', async () => {
    const { fs, journal } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    await journal.append({ path: 'x', oid: A, mode: '100644' });
    await fs.promises.appendFile!(PATH, '{"path":"y","oid":"bbbb');
    expect((await journal.load())?.changes).toEqual(new Map([['x', { oid: A, mode: '100644' }]]));
  });

  it('keeps every whole record before a torn line in the middle and reports the tear; only an unreadable header is JOURNAL_CORRUPT', async () => {
    const { fs, journal } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    await journal.append({ path: 'kept', oid: A, mode: '100644' });
    await fs.promises.appendFile!(PATH, '{"path":"y", torn\n{"path":"x","deleted":true}\n');
    const loaded = await journal.load();
    expect(loaded?.changes).toEqual(new Map([['kept', { oid: A, mode: '100644' }]]));
    expect(loaded?.torn).toEqual({ line: 3, dropped: 2 });
    await fs.promises.writeFile(PATH, 'not json\n');
    const error = await journal.load().catch((e: unknown) => e);
    expect(isForgeError(error, 'JOURNAL_CORRUPT')).toBe(true);
    expect((error as { hint: string }).hint).toContain('forge session discard s1');
  });

  it('writes a call\'s changes and its state record as ONE line, read back together', async () => {
    const { journal, read } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    await journal.appendRecord({ changes: [{ path: 'x', oid: B, mode: '100644' }, { path: 'y', deleted: true }], state: { delta: { n: 1 } } });
    expect((await read()).trimEnd().split('\n')).toHaveLength(2);
    const loaded = await journal.load();
    expect(loaded?.changes).toEqual(new Map([['x', { oid: B, mode: '100644' }], ['y', null]]));
    expect(loaded?.states).toEqual([{ delta: { n: 1 } }]);
  });

  it('appends a batch of records in a few writes of ~1 MiB, read back as the same records in order; a failed write keeps the whole runs before it', async () => {
    const { fs, journal, read } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    const records = Array.from({ length: 600 }, (_, k) => ({ changes: [{ path: `f${k}`, oid: B, mode: '100644' as const }], state: { k, text: 'x'.repeat(5000) } }));
    const realAppend = fs.appendFileSync!.bind(fs);
    let writes = 0;
    (fs as { appendFileSync: unknown }).appendFileSync = (path: string, data: string) => {
      writes++;
      realAppend(path, data);
    };
    expect(await journal.appendRecords(records)).toBe(true);
    expect(writes).toBe(3); // 600 lines of ~5 KB: runs of 1 MiB
    expect((await read()).trimEnd().split('\n')).toHaveLength(601);
    const loaded = await journal.load();
    expect([...loaded!.changes.keys()]).toEqual(records.map((_, k) => `f${k}`));
    expect(loaded!.states).toEqual(records.map((r) => r.state));
    // The second run fails half-way: the first run's records stay, the torn one is cut back.
    let calls = 0;
    (fs as { appendFileSync: unknown }).appendFileSync = (path: string, data: string) => {
      if (++calls === 2) {
        realAppend(path, String(data).slice(0, 100));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      realAppend(path, data);
    };
    const second = records.map((r) => ({ ...r, state: { ...r.state, second: true } }));
    const error = await journal.appendRecords(second).catch((e: unknown) => e);
    expect(isForgeError(error, 'DISK_FULL')).toBe(true);
    const after = await journal.load();
    expect(after!.torn).toBeUndefined();
    const kept = after!.states.length - 600;
    expect(kept).toBeGreaterThan(100); // the first run, whole
    expect(kept).toBeLessThan(600);
    expect(after!.states).toEqual([...records, ...second.slice(0, kept)].map((r) => r.state));
  });

  it('T-12.3: an append that fails half-way (ENOSPC) is cut back to the last whole record and reported as DISK_FULL', async () => {
    const { fs, journal, read } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    await journal.append({ path: 'ok', oid: A, mode: '100644' });
    const before = await read();
    const realAppend = fs.appendFileSync!.bind(fs);
    // A full disk: part of the line is written, then the write fails.
    (fs as { appendFileSync: unknown }).appendFileSync = (path: string, data: string) => {
      realAppend(path, String(data).slice(0, 7));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    const error = await journal.append({ path: 'lost', oid: B, mode: '100644' }).catch((e: unknown) => e);
    expect(isForgeError(error, 'DISK_FULL')).toBe(true);
    expect(await read()).toBe(before);
    (fs as { appendFileSync: unknown }).appendFileSync = realAppend;
    await journal.append({ path: 'after', oid: B, mode: '100644' });
    expect((await journal.load())?.changes).toEqual(new Map([['ok', { oid: A, mode: '100644' }], ['after', { oid: B, mode: '100644' }]]));
  });

  it('reports a journal without its header line (e.g. appended to after another writer removed it) as JOURNAL_CORRUPT', async () => {
    const { fs, journal } = setup();
    await fs.promises.mkdir('/g/forge/pending', { recursive: true });
    await fs.promises.writeFile(PATH, JSON.stringify({ path: 'x', oid: A, mode: '100644' }) + '\n');
    expect(isForgeError(await journal.load().catch((e: unknown) => e), 'JOURNAL_CORRUPT')).toBe(true);
  });

  it('does not append to a journal that is gone (it reports false so the view rewrites it whole)', async () => {
    const { journal } = setup();
    expect(await journal.append({ path: 'x', deleted: true })).toBe(false);
    expect(await journal.appendState({ n: 1 })).toBe(false);
    expect(await journal.load()).toBeNull();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map(), states: [] });
    expect(await journal.append({ path: 'x', deleted: true })).toBe(true);
    expect((await journal.load())?.changes).toEqual(new Map([['x', null]]));
  });

  it('rewrites atomically (no temporary file left) and only the owner clears it', async () => {
    const { fs, journal } = setup();
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map([['x', null]]), states: [] });
    expect(await fs.promises.readdir('/g/forge/pending')).toEqual(['s1.jsonl']);
    await journal.clear('someone-else');
    expect(await journal.load()).not.toBeNull();
    await journal.clear('o1');
    expect(await journal.load()).toBeNull();
    await journal.rewrite({ base: A, owner: 'o2', changes: new Map(), states: [] });
    await journal.clear();
    expect(await journal.load()).toBeNull();
    await journal.clear(); // clearing nothing is fine
  });

  it('clearing does not remove a journal another writer put in place while the clear was checking ownership', async () => {
    const { fs } = setup();
    const winner = new FsJournal(fs, '/g', 's1');
    await winner.rewrite({ base: A, owner: 'winner', changes: new Map(), states: [] });
    // The loser of a race persists its journal at the worst moment: right after the winner read the file to check ownership.
    let interleaved = false;
    // The ownership check reads the file's start with openSync/readSync (the fs has them), else with readFile.
    const opened = new Map<number, string>();
    const racing: GitFs = {
      ...fs,
      openSync: (path: string, flags: string | number) => {
        const fd = fs.openSync!(path, flags);
        opened.set(fd, path);
        return fd;
      },
      closeSync: (fd: number) => {
        fs.closeSync!(fd);
        if (!interleaved && opened.get(fd)?.startsWith(PATH)) {
          interleaved = true;
          // The loser's rewrite (a temporary file renamed into place), done here as the read is synchronous.
          fs.writeFileSync!(`${PATH}.loser.tmp`, `${JSON.stringify({ v: 1, base: A, owner: 'loser' })}\n${JSON.stringify({ path: 'mine.txt', oid: B, mode: '100644' })}\n`);
          fs.renameSync!(`${PATH}.loser.tmp`, PATH);
        }
      },
      promises: new Proxy(fs.promises, {
        get(target, name) {
          const value = Reflect.get(target, name) as (...args: unknown[]) => Promise<unknown>;
          if (name !== 'readFile') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            const result = await value.apply(target, args);
            if (!interleaved && String(args[0]).startsWith(PATH)) {
              interleaved = true;
              await new FsJournal(fs, '/g', 's1').rewrite({ base: A, owner: 'loser', changes: new Map([['mine.txt', { oid: B, mode: '100644' }]]) , states: [] });
            }
            return result;
          };
        },
      }),
    };
    await new FsJournal(racing, '/g', 's1').clear('winner');
    expect(interleaved).toBe(true);
    const left = await new FsJournal(fs, '/g', 's1').load();
    expect(left?.owner).toBe('loser');
    expect(left?.changes).toEqual(new Map([['mine.txt', { oid: B, mode: '100644' }]]));
    expect((await fs.promises.readdir('/g/forge/pending')).sort()).toEqual(['s1.jsonl']);
  });

  it('checks ownership at a clear from the header line only, not by reading and parsing the whole journal', async () => {
    const { fs, journal } = setup();
    const states = Array.from({ length: 200 }, (_, k) => ({ delta: { toolCalls: [{ id: `c${k}`, args: { content: 'x'.repeat(2000) } }] } }));
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map([['x', null]]), states });
    const size = (await fs.promises.stat(PATH)).size;
    let bytesRead = 0;
    let wholeReads = 0;
    const counting: GitFs = {
      ...fs,
      readSync: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) => {
        const n = fs.readSync!(fd, buffer, offset, length, position);
        bytesRead += n;
        return n;
      },
      readFileSync: (path: string) => {
        wholeReads++;
        return fs.readFileSync!(path);
      },
      promises: { ...fs.promises, readFile: ((...args: [string]) => (wholeReads++, fs.promises.readFile(...args))) as GitFs['promises']['readFile'] },
    };
    await new FsJournal(counting, '/g', 's1').clear('someone-else');
    expect(await journal.load()).not.toBeNull();
    await new FsJournal(counting, '/g', 's1').clear('o1');
    expect(await journal.load()).toBeNull();
    expect(wholeReads).toBe(0);
    expect(bytesRead).toBeLessThan(size / 10);
  });

  it('keeps journals of different keys apart', async () => {
    const { fs, journal } = setup();
    const other = new FsJournal(fs, '/g', 's2');
    await journal.rewrite({ base: A, owner: 'o1', changes: new Map([['x', null]]), states: [] });
    await other.rewrite({ base: B, owner: 'o2', changes: new Map(), states: [] });
    expect((await journal.load())?.base).toBe(A);
    expect((await other.load())?.changes.size).toBe(0);
  });
});
