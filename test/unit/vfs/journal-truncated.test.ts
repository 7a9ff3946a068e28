/**
 * Issue 25: a torn or partial journal loads as on disk, never a TypeError. A reloaded browser tab
 * found its journal cut short or with no bytes at all (lightning-fs saves its directory tree apart
 * from the files' bytes), and every later open crashed with "Cannot read properties of undefined
 * (reading 'split')". Here: the journal cut at every byte, lines that parse as JSON of another
 * shape, and a file whose bytes the fs cannot give.
 */
import { createFsFromVolume, Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { asGitFs, type GitFs } from '../../../src/git';
import { FsJournal, type JournalContent } from '../../../src/vfs';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const PATH = '/g/forge/pending/s1.jsonl';

type Change = { path: string; oid: string; mode: '100644' | '100755' } | { path: string; deleted: true } | { path: string; reverted: true };
/** The records a session writes, in the shapes the journal knows (a tool call, a state, a bare change). */
const RECORDS: Array<{ c: Change[]; state?: unknown } | { state: unknown } | Change> = [
  { c: [{ path: 'src/a.txt', oid: A, mode: '100644' }], state: { calls: [{ tool: 'write_file', note: 'é ✓' }] } },
  { state: { n: 1 } },
  { path: 'bin/run', oid: B, mode: '100755' },
  { c: [{ path: 'src/a.txt', reverted: true }, { path: 'gone', deleted: true }], state: { n: 2 } },
  { c: [{ path: 'z', oid: B, mode: '100644' }] },
];

/** The model: what whole records mean. */
function fold(records: typeof RECORDS): Pick<JournalContent, 'changes' | 'states'> {
  const changes: JournalContent['changes'] = new Map();
  const states: unknown[] = [];
  const apply = (c: Change) => {
    if ('deleted' in c) changes.set(c.path, null);
    else if ('reverted' in c) changes.delete(c.path);
    else changes.set(c.path, { oid: c.oid, mode: c.mode });
  };
  for (const r of records) {
    if ('c' in r) r.c.forEach(apply);
    else if (!('state' in r)) apply(r);
    if ('state' in r) states.push(r.state);
  }
  return { changes, states };
}

function memfs(): GitFs {
  return asGitFs(createFsFromVolume(new Volume()));
}

async function writeJournal(fs: GitFs, bytes: Uint8Array): Promise<void> {
  await fs.promises.mkdir('/g/forge/pending', { recursive: true });
  await fs.promises.writeFile(PATH, bytes);
}

describe('issue 25: a torn or partial journal loads as on disk', () => {
  const header = JSON.stringify({ v: 1, base: A, owner: 'o1' });
  const lines = [header, ...RECORDS.map((r) => JSON.stringify(r))];
  const whole = new TextEncoder().encode(lines.join('\n') + '\n');
  /** Byte offset where each line's JSON ends (its newline not included). */
  const ends: number[] = [];
  let offset = 0;
  for (const line of lines) {
    offset += new TextEncoder().encode(line).length;
    ends.push(offset);
    offset += 1;
  }

  it('cut at every byte: the whole records before the cut, never a TypeError; a cut header is JOURNAL_CORRUPT', async () => {
    for (let cut = 0; cut <= whole.length; cut++) {
      const fs = memfs();
      await writeJournal(fs, whole.subarray(0, cut));
      const journal = new FsJournal(fs, '/g', 's1');
      if (cut === 0) {
        expect(await journal.load()).toBeNull();
        continue;
      }
      if (cut < ends[0]!) {
        const error = await journal.load().then(
          () => null,
          (e: unknown) => e,
        );
        expect(isForgeError(error) && error.code, `cut at ${cut}`).toBe('JOURNAL_CORRUPT');
        continue;
      }
      const kept = ends.slice(1).filter((end) => end <= cut).length;
      const loaded = await journal.load();
      expect(loaded, `cut at ${cut}`).not.toBeNull();
      expect({ changes: loaded!.changes, states: loaded!.states }, `cut at ${cut}`).toEqual(fold(RECORDS.slice(0, kept)));
      expect(loaded!.base).toBe(A);
      // A partial record after the whole ones is reported as a tear.
      const partial = cut > (ends[kept] ?? 0) + 1 && kept < RECORDS.length;
      expect(loaded!.torn !== undefined, `cut at ${cut}`).toBe(partial);
    }
  });

  it('a line that parses as JSON of another shape is a tear: the records before it stand', async () => {
    for (const odd of ['1', 'null', '"text"', '[]', '{}', '{"c":5}', '{"c":[null]}', '{"c":[{"path":"x"}]}', '{"path":"a"}', '{"path":"a","oid":"zz","mode":"100644"}', '{"path":"a","oid":"' + A + '","mode":"644"}', '{"path":"a","deleted":"yes"}']) {
      const fs = memfs();
      await writeJournal(fs, new TextEncoder().encode([header, lines[1], odd, lines[2]].join('\n') + '\n'));
      const loaded = await new FsJournal(fs, '/g', 's1').load();
      expect({ changes: loaded!.changes, states: loaded!.states }, odd).toEqual(fold(RECORDS.slice(0, 1)));
      expect(loaded!.torn, odd).toEqual({ line: 3, dropped: 2 });
    }
  });

  it('a journal file whose bytes the fs cannot give (lightning-fs answers undefined) holds nothing: no TypeError', async () => {
    const fs = memfs();
    await writeJournal(fs, whole);
    // lightning-fs after a reload: the directory tree names the file, IndexedDB has no bytes for it.
    const readFile = fs.promises.readFile;
    const noBytes = { ...fs, promises: { ...fs.promises, readFile: (async () => undefined) as unknown as typeof readFile } } as GitFs;
    const journal = new FsJournal(noBytes, '/g', 's1');
    expect(await journal.load()).toBeNull();
  });
});
