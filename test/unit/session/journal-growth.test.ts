/**
 * The in-turn state is journaled as deltas: a turn of n tool calls writes O(n) journal bytes.
 * (Snapshots of the whole state after every call would write O(n^2): each call's record holds
 * its arguments, file contents included.) And a crash mid-turn still loses nothing.
 */
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../../src/agent/tool-calls';
import { SessionStore, encodeState } from '../../../src/session';
import { allowAll } from '../../../src/tools';
import { MEMFS_BACKENDS } from '../../helpers/engine-repos';

describe('session state journal', () => {
  it('grows linearly with the calls of a turn, and a reopened session folds it back exactly', async () => {
    const repo = await MEMFS_BACKENDS[0]!.make({ files: { 'README.md': 'hi\n' } });
    const store = new SessionStore(await repo.open());
    const session = await store.create({ id: 'grow', base: 'main' });
    const tools = new SessionToolRunner(session, { approval: allowAll });
    await session.recordUserMessage('write many files');
    for (let i = 0; i < 150; i++) {
      const result = await tools.call({ tool: 'write_file', args: { path: `f/${i}.txt`, content: `${i}\n`.repeat(200) } });
      expect(result.ok).toBe(true);
    }
    const journalBytes = (await repo.fs.promises.readFile(`${repo.gitdir}/forge/pending/grow.jsonl`)).length;
    const stateBytes = encodeState(session.state).length;
    // The journal holds each call once (plus one blob line per file), never the growing state again.
    expect(journalBytes).toBeLessThan(2 * stateBytes);

    const reopened = await new SessionStore(await repo.open()).open('grow');
    expect(reopened.state).toEqual(session.state);
    expect((await reopened.vfs.diff()).length).toBe(150);
    await reopened.commitTurn();
    expect(reopened.state.turn).toBe(1);
  });
});
