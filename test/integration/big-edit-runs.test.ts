/**
 * A line-range Edit of a large file writes its new version from runs over the old bytes (the
 * bytes before the edited lines, the new lines, the bytes after them), hashed and deflated run by
 * run: the new version is never assembled (issue 30, item 4: 48 MiB less at the peak of a 50 MB
 * edit). What it writes must be exactly the edited file: the blob git computes, its SHA-256 as
 * the answer's hash, read back, committed, fsck clean; on every backend (the portable platform
 * joins the runs: it has no hashing in parts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import type { Bytes } from '../../src/git';
import { SessionStore } from '../../src/session';
import { BUILTIN_TOOLS, ToolRegistry, allowAll, type ToolResult } from '../../src/tools';
import { BACKENDS } from '../helpers/engine-repos';
import { gitShowBytes } from '../helpers/repos';

function ok(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return result.output as Record<string, unknown>;
}

const sha1 = (b: Uint8Array) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.each(BACKENDS)('a line-range Edit of a large file on $name', (backend) => {
  it('writes the edited file from runs over the old bytes, never joined where the platform hashes parts', async () => {
    // ~1.6 MB, over the 1 MiB from which the splice stays runs; some lines beyond ASCII.
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i} ${i % 7 === 0 ? 'ünï 中 ' : ''}${'x'.repeat(i % 50)}\n`);
    const before = Buffer.from(lines.join(''));
    const repo = await backend.make({ files: { 'big/big.txt': before, 'a.txt': 'a\n' } });
    const store = new SessionStore(await repo.open());
    const session = await store.create({ id: 'big', base: 'main' });
    const tools = new SessionToolRunner(session, { approval: allowAll, registry: new ToolRegistry([...BUILTIN_TOOLS]) });
    const writes: Bytes[] = [];
    const objects = session.repo.objects;
    const write = objects.write.bind(objects);
    objects.write = (type, content) => (type === 'blob' && writes.push(content), write(type, content));

    ok(await tools.call({ tool: 'read_file', args: { path: 'big/big.txt', start_line: 19_990, end_line: 20_010 } }));
    const answer = ok(await tools.call({ tool: 'Edit', args: { path: 'big/big.txt', start_line: 20_000, end_line: 20_001, new_content: 'changed ü\n' } }));
    const expected = Buffer.concat([Buffer.from(lines.slice(0, 19_999).join('')), Buffer.from('changed ü\n'), Buffer.from(lines.slice(20_001).join(''))]);

    expect(answer.current_file_hash).toBe(sha256(expected));
    const written = writes.filter((w) => !(w instanceof Uint8Array) || w.length === expected.length);
    expect(written).toHaveLength(1);
    // The runs: views of the old bytes around the new lines' UTF-8.
    expect(written[0]).not.toBeInstanceOf(Uint8Array);
    expect(Buffer.concat(written[0] as Uint8Array[]).equals(expected)).toBe(true);
    const entry = await session.vfs.stat('big/big.txt');
    expect(entry?.oid).toBe(sha1(expected));
    expect(Buffer.from(await session.vfs.readFile('big/big.txt')).equals(expected)).toBe(true);

    const turn = await session.commitTurn();
    const gitdir = repo.diskGitdir();
    expect(gitShowBytes(gitdir, turn.commit, 'big/big.txt').equals(expected)).toBe(true);
    repo.fsck();
    // The recorded change (undo) carries the same hash.
    const read = ok(await tools.call({ tool: 'read_file', args: { path: 'big/big.txt', start_line: 20_000, end_line: 20_000 } }));
    expect(read.file_hash).toBe(sha256(expected));
  });
});
